import { JobHandler, JobHandlerHost, RetryLaterError } from '@conveyor/core';
import { drainQueue } from '@conveyor/core/testing';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

/** Asks to run again after a Retry-After the answer did not carry: the header read as a number is NaN. */
@JobHandler('NO_RETRY_AFTER', { maxAttempts: 1 })
class MissingRetryAfterHandler extends JobHandlerHost {
  handle(): never {
    const retryAfter = new Headers().get('retry-after') ?? undefined;
    throw new RetryLaterError(Number(retryAfter) * 1000, 'upstream busy');
  }
}

/** Throws an error whose `stack` something replaced with an object. */
@JobHandler('ODD_STACK', { maxAttempts: 1 })
class OddStackHandler extends JobHandlerHost {
  handle(): never {
    const error = new Error('upstream said no');
    Object.defineProperty(error, 'stack', { value: { frames: [] } });
    throw error;
  }
}

describe('errors a handler throws, as stored', () => {
  let schema: TestSchema;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('handler_errors');
    t = await createTestApp({ schema: schema.schema, http: false, providers: [MissingRetryAfterHandler, OddStackHandler] });
  });
  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  async function storedAfterOneAttempt(type: string): Promise<{ status: string; last_error: string; errors: Record<string, unknown>[] }> {
    const { id } = await t.jobs.enqueue(type, {});
    await drainQueue(t.app, { timeoutMs: 10_000 });
    const { rows } = await t.sql.query(`SELECT status, last_error, errors FROM ${t.jobsTable} WHERE id = $1`, [id]);
    return rows[0];
  }

  it('a RetryLaterError with no valid time fails the attempt with a RangeError saying so', async () => {
    const row = await storedAfterOneAttempt('NO_RETRY_AFTER');
    const problem = 'RangeError: RetryLaterError needs a valid Date or a finite delay in milliseconds; got NaN';
    expect(row).toMatchObject({ status: 'DEAD', last_error: problem, errors: [{ kind: 'failed', error: problem }] });
    expect(row.errors[0].stack).toContain('MissingRetryAfterHandler.handle');
  });

  it('an error whose stack is no text is stored with its own message, without a stack', async () => {
    const row = await storedAfterOneAttempt('ODD_STACK');
    expect(row).toMatchObject({ status: 'DEAD', last_error: 'Error: upstream said no', errors: [{ kind: 'failed' }] });
    expect(row.errors[0]).not.toHaveProperty('stack');
  });
});
