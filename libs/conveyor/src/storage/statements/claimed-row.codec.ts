import { Job } from '../../job/job';
import { PlainJob } from '../../job/plain-job';
import { JobStatus } from '../../job/job-status';
import { epochMicros, parseTimestamptz } from '../connections/engine-type-parsers';
import { ClaimStamp } from './claim-set';

/**
 * The claimed-row encoding: how a claim statement sends back the jobs it claimed (`CLAIMED_JOB_COLUMNS`, the
 * select list both claim statements use) and how they are read (`mapClaimedJobRow`). The two ends live here
 * together; change one, change the other.
 *
 * - Only what varies per job travels. The error history and result stay in the database; what the claim itself
 *   just set (status, worker, lease token, the timestamps equal to the statement's `now()`) is filled in from the
 *   claim's `ClaimStamp` and `started_at`.
 * - Rows come back as arrays (`rowMode: 'array'`), read by the positions in `CLAIMED_COLUMN`.
 * - The numbers and timestamps travel joined in one text column, `counters` (`CLAIMED_COUNTERS`), split here.
 * - `created_at` is null when it equals `run_at`, as for every job submitted to run at once.
 *
 * Why each of these pays is in docs/performance.md, "Design notes from measurements".
 */
export const CLAIMED_COLUMN = {
  id: 0,
  queue: 1,
  type: 2,
  payload: 3,
  counters: 4,
  last_error: 5,
  idempotency_key: 6,
  unique_key: 7,
  created_at: 8,
} as const;

/**
 * What the `counters` column joins, in order, with commas: columns that are never null (`concat_ws` would drop a
 * null and shift the rest) and whose text never holds a comma — integers and timestamps in PostgreSQL's ISO form.
 */
export const CLAIMED_COUNTERS = ['seq', 'priority', 'attempts', 'max_attempts', 'snoozes', 'version', 'run_at', 'started_at'] as const;

/** Where each counter is in the split `counters` text. */
export const COUNTER = Object.fromEntries(CLAIMED_COUNTERS.map((name, i) => [name, i])) as {
  readonly [K in (typeof CLAIMED_COUNTERS)[number]]: number;
};

/** How many columns `CLAIMED_JOB_COLUMNS` gives; a statement's own extra columns follow them. */
export const CLAIMED_COLUMN_COUNT = Object.keys(CLAIMED_COLUMN).length;

/** A claimed job's row, as an array in `CLAIMED_COLUMN` order. */
export type ClaimedJobRow = unknown[];

/** The `CLAIMED_COLUMN`s in their order, read from table alias `alias`. */
export function CLAIMED_JOB_COLUMNS(alias: string): string {
  return Object.keys(CLAIMED_COLUMN)
    .map((c) => {
      if (c === 'counters') return `concat_ws(',', ${CLAIMED_COUNTERS.map((n) => `${alias}.${n}`).join(', ')}) AS counters`;
      if (c === 'created_at') return `NULLIF(${alias}.created_at, ${alias}.run_at) AS created_at`;
      return `${alias}.${c}`;
    })
    .join(', ');
}

const C = CLAIMED_COLUMN;

/**
 * Reads a row returned by a claim (`CLAIMED_JOB_COLUMNS`, as an array): the job is RUNNING under the stamp's
 * worker and token, and the claim set `updated_at` to the same `now()` as `started_at` and `locked_until` to
 * the stamp's lease after it. Built with `new PlainJob()`, as `mapJobRow` explains.
 */
export function mapClaimedJobRow<P = unknown>(row: ClaimedJobRow, stamp: ClaimStamp): Job<P> {
  const job = new PlainJob<P>();
  const counters = (row[C.counters] as string).split(',');
  const startedAt = parseTimestamptz(counters[COUNTER.started_at]);
  job.id = row[C.id] as string;
  job.seq = counters[COUNTER.seq];
  job.queue = row[C.queue] as string;
  job.type = row[C.type] as string;
  job.payload = row[C.payload] as P;
  job.status = JobStatus.RUNNING;
  job.priority = Number(counters[COUNTER.priority]);
  job.runAt = parseTimestamptz(counters[COUNTER.run_at]);
  job.attempts = Number(counters[COUNTER.attempts]);
  job.maxAttempts = Number(counters[COUNTER.max_attempts]);
  job.snoozes = Number(counters[COUNTER.snoozes]);
  job.lastError = (row[C.last_error] as string | null) ?? null;
  job.result = null;
  job.errors = [];
  job.idempotencyKey = (row[C.idempotency_key] as string | null) ?? null;
  job.uniqueKey = (row[C.unique_key] as string | null) ?? null;
  job.lockedBy = stamp.workerId;
  job.lockedUntil = new Date(startedAt.getTime() + stamp.leaseMs);
  job.leaseToken = stamp.token;
  job.version = Number(counters[COUNTER.version]);
  // Null when it equals run_at (see CLAIMED_JOB_COLUMNS).
  job.createdAt = (row[C.created_at] as Date | null) ?? new Date(job.runAt.getTime());
  job.updatedAt = startedAt;
  job.startedAt = startedAt;
  job.finishedAt = null;
  // The claim clears it (claimSet).
  job.progress = null;
  return job;
}

/**
 * Each claimed row's job id with its `started_at` in µs since the epoch (`epochMicros`): the time its claim gave the
 * row, its `updated_at` too. The rows of one claim statement share it, so each distinct text is converted once.
 */
export function claimedStartedAtUs(rows: readonly ClaimedJobRow[]): Map<string, string> {
  const times = new Map<string, string>();
  let text = '';
  let micros = '';
  for (const row of rows) {
    const startedAt = (row[C.counters] as string).split(',')[COUNTER.started_at];
    if (startedAt !== text) {
      text = startedAt;
      micros = epochMicros(startedAt);
    }
    times.set(row[C.id] as string, micros);
  }
  return times;
}
