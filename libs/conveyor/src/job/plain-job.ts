import { JobErrorEntry } from './job-error-entry.interface';
import { Job } from './job';
import { JobProgress } from './job-progress';
import { JobStatus } from './job-status';

/**
 * A {@link Job} built by a constructor: no decorators, no behaviour, just the fields. It exists because the
 * row mappers must not build jobs as object literals (see storage/statements/job-row.mapper.ts: V8
 * pretenures literals from a hot allocation site). Internal: users see the `Job` interface only.
 */
export class PlainJob<P = unknown, R = unknown> implements Job<P, R> {
  id: string;
  seq: string;
  queue: string;
  type: string;
  payload: P;
  status: JobStatus;
  priority: number;
  runAt: Date;
  attempts: number;
  maxAttempts: number;
  snoozes: number;
  lastError: string | null;
  result: R | null;
  errors: JobErrorEntry[];
  idempotencyKey: string | null;
  uniqueKey: string | null;
  lockedBy: string | null;
  lockedUntil: Date | null;
  leaseToken: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  progress: JobProgress | null;
}
