import { CancelJobError } from '../errors/cancel-job.error';
import { JobTimeoutError } from '../errors/job-timeout.error';
import { PermanentJobError } from '../errors/permanent-job.error';
import { RetryLaterError } from '../errors/retry-later.error';
import { Job } from '../job/job';
import { PlainJob } from '../job/plain-job';
import { JobStatus } from '../job/job-status';
import { completedRow, failureRow, handBackRow, outcomeOf } from './outcome-rows';

const WORKER = 'w1';
const MAX_SNOOZES = 3;
/** No jitter: the retry delay is exactly base * factor^(attempt - 1). */
const handler = { backoff: { baseMs: 1_000, factor: 2, maxMs: 60_000, jitter: 0 } };

function job(fields: Partial<Job> = {}): Job {
  return Object.assign(new PlainJob(), { id: 'j1', leaseToken: 'tok', attempts: 1, maxAttempts: 3, snoozes: 0 }, fields);
}

describe('outcome rows', () => {
  describe('completedRow', () => {
    it('completes with the result, fenced by the lease token', () => {
      expect(completedRow(job(), { sent: 2 })).toEqual({ id: 'j1', token: 'tok', status: JobStatus.COMPLETED, result: { sent: 2 } });
    });

    it('completes with no result and says why when the result cannot be stored', () => {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const row = completedRow(job(), circular);
      expect(row).toMatchObject({ status: JobStatus.COMPLETED, result: null });
      expect(row.error).toMatch(/not JSON-serialisable/);
    });
  });

  it('hands a job back ready again in its place (run_at kept), the attempt refunded, with a handed-back entry', () => {
    expect(handBackRow(job(), WORKER)).toMatchObject({
      status: JobStatus.PENDING,
      delay_ms: null,
      refund: 1,
      entry: { attempt: 1, kind: 'handed-back', worker: WORKER },
    });
  });

  describe('failureRow classifies what the handler threw', () => {
    const fail = (err: unknown, fields: Partial<Job> = {}) => failureRow(job(fields), handler, err, WORKER, MAX_SNOOZES);

    it('an ordinary error: retried after the backoff while attempts remain', () => {
      const row = fail(new Error('boom'), { attempts: 2 });
      expect(row).toMatchObject({
        status: JobStatus.RETRYING,
        delay_ms: 2_000,
        error: 'Error: boom',
        entry: { kind: 'failed', attempt: 2 },
      });
      expect(row.refund).toBeUndefined();
      expect((row.entry as { stack?: string }).stack).toContain('boom');
    });

    it('an ordinary error on the last attempt: dead', () => {
      expect(fail(new Error('boom'), { attempts: 3 })).toMatchObject({ status: JobStatus.DEAD, entry: { kind: 'failed' } });
    });

    it('a timeout: a failed attempt of kind timeout', () => {
      expect(fail(new JobTimeoutError(50))).toMatchObject({ status: JobStatus.RETRYING, entry: { kind: 'timeout' } });
      expect(fail(new JobTimeoutError(50), { attempts: 3 })).toMatchObject({ status: JobStatus.DEAD, entry: { kind: 'timeout' } });
    });

    it('retry-later: back to waiting until its time, the attempt refunded and counted as a snooze', () => {
      const runAt = new Date(Date.now() + 60_000);
      const row = fail(new RetryLaterError(runAt));
      expect(row).toMatchObject({
        status: JobStatus.RETRYING,
        refund: 1,
        snoozed: 1,
        entry: { kind: 'retry-later', retryAt: runAt.toISOString() },
      });
      expect(row.delay_ms).toBeGreaterThan(59_000);
      expect(row.delay_ms).toBeLessThanOrEqual(60_000);
    });

    it('retry-later once the snooze cap is reached: dead', () => {
      expect(fail(new RetryLaterError(1_000), { snoozes: MAX_SNOOZES })).toMatchObject({
        status: JobStatus.DEAD,
        entry: { kind: 'snooze-cap' },
      });
    });

    it('a permanent error: dead at once, whatever attempts remain', () => {
      expect(fail(new PermanentJobError('never'), { attempts: 1 })).toMatchObject({ status: JobStatus.DEAD, entry: { kind: 'permanent' } });
    });

    it('a cancel: cancelled', () => {
      expect(fail(new CancelJobError())).toMatchObject({ status: JobStatus.CANCELLED, entry: { kind: 'cancelled' } });
    });

    it('something that is not an Error: described as JSON', () => {
      expect(fail({ code: 7 }).error).toBe('Non-error thrown: {"code":7}');
    });

    it('an Error whose stack is no text: described by its name and message, stored without a stack', () => {
      const error = new Error('boom');
      Object.defineProperty(error, 'stack', { value: 42 });
      const row = fail(error);
      expect(row).toMatchObject({ status: JobStatus.RETRYING, error: 'Error: boom', entry: { kind: 'failed', error: 'Error: boom' } });
      expect(row.entry).not.toHaveProperty('stack');
    });

    it('text PostgreSQL cannot store (NUL, a lone surrogate) is replaced, so the batch can be written', () => {
      expect(fail(new Error('a\u0000b\uD800c')).error).toBe('Error: a\\0b\uFFFDc');
    });
  });

  it('outcomeOf names what a row means for metrics and logs', () => {
    const j = job();
    expect(outcomeOf(completedRow(j, null))).toBe('completed');
    expect(outcomeOf(failureRow(j, handler, new Error('x'), WORKER, MAX_SNOOZES))).toBe('failed');
    expect(outcomeOf(failureRow(j, handler, new RetryLaterError(10), WORKER, MAX_SNOOZES))).toBe('snoozed');
    expect(outcomeOf(failureRow(j, handler, new PermanentJobError('x'), WORKER, MAX_SNOOZES))).toBe('dead');
    expect(outcomeOf(failureRow(j, handler, new CancelJobError(), WORKER, MAX_SNOOZES))).toBe('cancelled');
    expect(outcomeOf(handBackRow(j, WORKER))).toBe('handed_back');
  });
});
