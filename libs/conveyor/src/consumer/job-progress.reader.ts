import { JobValidationError } from '../errors/job-request.errors';
import { JobProgress, MAX_PROGRESS_DATA_BYTES } from '../job/job-progress';
import { findUnstorableJson } from '../job/json-safety';

/** What a handler or worker may report: a percentage, or a percentage and/or a small JSON object. */
export type JobProgressInput = number | { percent?: number | null; data?: Record<string, unknown> | null };

/**
 * Checks a progress report and returns it as stored, its `data` through JSON: `percent` a number from 0 to 100, `data`
 * a JSON object of at most MAX_PROGRESS_DATA_BYTES that jsonb can hold (findUnstorableJson), at least one of them. A
 * bad report is a JobValidationError naming the field (a 400 over HTTP; a rejection of `progress()` in a handler).
 */
export function readJobProgress(input: unknown): JobProgress {
  const given = typeof input === 'number' ? { percent: input } : input;
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw invalid('progress', 'must be a number from 0 to 100 or an object { percent, data }');
  }
  const { percent = null, data = null } = given as { percent?: unknown; data?: unknown };
  if (percent !== null && (typeof percent !== 'number' || !Number.isFinite(percent) || percent < 0 || percent > 100)) {
    throw invalid('percent', 'must be a number from 0 to 100');
  }
  if (data !== null && (typeof data !== 'object' || Array.isArray(data))) throw invalid('data', 'must be a JSON object');
  if (percent === null && data === null) throw invalid('percent', 'give percent, data or both');
  if (data !== null) {
    let text: string;
    try {
      text = JSON.stringify(data);
    } catch {
      throw invalid('data', 'must be JSON');
    }
    if (Buffer.byteLength(text) > MAX_PROGRESS_DATA_BYTES) {
      throw invalid('data', `must be at most ${MAX_PROGRESS_DATA_BYTES} bytes as JSON (got ${Buffer.byteLength(text)})`);
    }
    // Checked and answered as it will be stored: JSON text, where undefined fields and functions are gone and dates
    // are strings.
    const stored = JSON.parse(text) as Record<string, unknown>;
    const unstorable = findUnstorableJson(stored, 'data');
    if (unstorable) throw invalid(unstorable.field, unstorable.problem);
    return { percent: percent as number | null, data: stored };
  }
  return { percent: percent as number | null, data: null };
}

function invalid(field: string, problem: string): JobValidationError {
  return new JobValidationError(`Invalid progress: ${field}`, [{ field, problems: [problem] }]);
}
