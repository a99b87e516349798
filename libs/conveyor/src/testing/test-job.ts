import { randomUUID } from 'node:crypto';
import { newJobId } from '../job/job-id';
import { conveyorDefaults } from '../config/conveyor-defaults';
import { Job } from '../job/job';
import { PlainJob } from '../job/plain-job';
import { JobStatus } from '../job/job-status';

/**
 * A job as a handler would receive it on its `attempt`-th run, without a database: RUNNING, claimed by a test
 * worker, every field a real claim sets filled in. `fields` overrides any of them.
 */
export function buildTestJob<P>(payload: P, fields: Partial<Job<P>> = {}): Job<P> {
  const now = new Date();
  const job = new PlainJob<P>();
  Object.assign(job, {
    id: newJobId(),
    seq: '1',
    queue: 'default',
    type: 'test',
    payload,
    status: JobStatus.RUNNING,
    priority: 0,
    runAt: now,
    attempts: 1,
    maxAttempts: conveyorDefaults().defaultMaxAttempts,
    snoozes: 0,
    lastError: null,
    result: null,
    errors: [],
    idempotencyKey: null,
    uniqueKey: null,
    lockedBy: 'conveyor-testing',
    lockedUntil: new Date(now.getTime() + 30_000),
    leaseToken: randomUUID(),
    version: 1,
    createdAt: now,
    updatedAt: now,
    startedAt: now,
    finishedAt: null,
    progress: null,
    ...fields,
  });
  return job;
}
