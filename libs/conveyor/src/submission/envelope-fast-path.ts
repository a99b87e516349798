import { isWellFormedName } from '../config/name-rule';
import { MAX_DELAY_MS } from './envelope/submit-job-envelope';

/**
 * A shortcut past class-validator for the common submission: every envelope field absent or plainly
 * valid by the same rules as SubmitJobEnvelope, in the narrowest form (printable ASCII strings, integers in
 * range, no `runAt`). class-validator is most of a bulk enqueue's Node time (docs/performance.md); this check
 * is a handful of comparisons. It only ever says "valid" where SubmitJobEnvelope's checks would pass too — anything else,
 * valid or not, goes the slow way, so every error message still comes from class-validator.
 */
export function isPlainlyValidEnvelope(raw: Record<string, unknown>): boolean {
  return (
    typeof raw.type === 'string' &&
    ASCII_1_200.test(raw.type) &&
    raw.payload !== undefined &&
    raw.payload !== null &&
    (raw.queue === undefined || isWellFormedName(raw.queue)) &&
    intOrAbsent(raw.priority, -1_000_000, 1_000_000) &&
    raw.runAt === undefined &&
    intOrAbsent(raw.delayMs, 0, MAX_DELAY_MS) &&
    intOrAbsent(raw.maxAttempts, 1, 1000) &&
    keyOrAbsent(raw.idempotencyKey) &&
    keyOrAbsent(raw.uniqueKey)
  );
}

/** Printable ASCII only: class-validator's length (which counts some code points specially) equals `.length`. */
const ASCII_1_200 = /^[\x20-\x7E]{1,200}$/;
const ASCII_1_255 = /^[\x20-\x7E]{1,255}$/;

function intOrAbsent(value: unknown, min: number, max: number): boolean {
  return value === undefined || (Number.isInteger(value) && (value as number) >= min && (value as number) <= max);
}

function keyOrAbsent(value: unknown): boolean {
  return value === undefined || (typeof value === 'string' && ASCII_1_255.test(value));
}
