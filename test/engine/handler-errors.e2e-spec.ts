import { JobHandler, JobHandlerHost, RetryLaterError } from '@conveyor/core';
import { drainQueue } from '@conveyor/core/testing';
import { MESSAGES } from '@conveyor/core/errors/conveyor.messages';
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

/** Returns, without `async`, a thenable whose `then` throws when the engine subscribes to it. */
@JobHandler('THROWING_THEN', { maxAttempts: 1 })
class ThrowingThenHandler extends JobHandlerHost {
  handle(): unknown {
    return {
      then() {
        throw new Error('then() refused');
      },
    };
  }
}

/** Returns, without `async`, a revoked proxy: reading any property of it throws. */
@JobHandler('REVOKED_PROXY', { maxAttempts: 1 })
class RevokedProxyHandler extends JobHandlerHost {
  handle(): unknown {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  }
}

/** Throws an Error whose `message` getter throws that same error, as a broken wrapper class may. */
@JobHandler('SELF_THROWING_MESSAGE', { maxAttempts: 1 })
class SelfThrowingMessageHandler extends JobHandlerHost {
  handle(): never {
    const error = new Error('never read');
    Object.defineProperty(error, 'message', {
      get() {
        throw error;
      },
    });
    throw error;
  }
}

/** Throws a proxy that throws itself when asked what it is (any `instanceof` of it). */
@JobHandler('SELF_THROWING_PROXY', { maxAttempts: 1 })
class SelfThrowingProxyHandler extends JobHandlerHost {
  handle(): never {
    const proxy: object = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw proxy;
        },
      },
    );
    throw proxy;
  }
}

/** Does its work, then returns a result whose `toJSON` throws null. */
@JobHandler('TOJSON_THROWS_NULL', { maxAttempts: 3 })
class ToJsonThrowsNullHandler extends JobHandlerHost {
  static runs = 0;
  handle(): unknown {
    ToJsonThrowsNullHandler.runs += 1;
    return {
      toJSON() {
        throw null;
      },
    };
  }
}

/** Asks to run again at the last instant a Date can hold: "never", as some code spells it. */
@JobHandler('RETRY_AT_END_OF_TIME', { maxAttempts: 1 })
class RetryAtEndOfTimeHandler extends JobHandlerHost {
  handle(): never {
    throw new RetryLaterError(new Date(8.64e15), 'not in this lifetime');
  }
}

describe('errors a handler throws, as stored', () => {
  let schema: TestSchema;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('handler_errors');
    t = await createTestApp({
      schema: schema.schema,
      http: false,
      providers: [
        MissingRetryAfterHandler,
        OddStackHandler,
        ThrowingThenHandler,
        RevokedProxyHandler,
        SelfThrowingMessageHandler,
        SelfThrowingProxyHandler,
        ToJsonThrowsNullHandler,
        RetryAtEndOfTimeHandler,
      ],
    });
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

  it('a returned thenable whose then() throws fails the attempt with that error, and the process carries on', async () => {
    const row = await storedAfterOneAttempt('THROWING_THEN');
    expect(row).toMatchObject({ status: 'DEAD', last_error: 'Error: then() refused', errors: [{ kind: 'failed' }] });
  });

  it('a returned value that cannot even be looked at (a revoked proxy) fails the attempt, and the process carries on', async () => {
    const row = await storedAfterOneAttempt('REVOKED_PROXY');
    expect(row).toMatchObject({ status: 'DEAD', errors: [{ kind: 'failed' }] });
    expect(row.last_error).toMatch(/^TypeError: .*revoked/);
  });

  it('an Error whose message cannot be read ends DEAD under its name, and frees its slot', async () => {
    const row = await storedAfterOneAttempt('SELF_THROWING_MESSAGE');
    expect(row).toMatchObject({ status: 'DEAD', last_error: 'Error: (unreadable)', errors: [{ kind: 'failed' }] });
  });

  it('a thrown value that throws itself whenever it is looked at ends DEAD, saying so, and frees its slot', async () => {
    const row = await storedAfterOneAttempt('SELF_THROWING_PROXY');
    expect(row).toMatchObject({ status: 'DEAD', last_error: `Error: ${MESSAGES.unreadableFailure}`, errors: [{ kind: 'failed' }] });
  });

  it('a result whose toJSON throws null completes the job, once, saying why no result was stored', async () => {
    const row = await storedAfterOneAttempt('TOJSON_THROWS_NULL');
    expect(row).toMatchObject({ status: 'COMPLETED', last_error: 'result is not JSON-serialisable: Non-error thrown: null', errors: [] });
    expect(ToJsonThrowsNullHandler.runs).toBe(1);
  });

  it('a RetryLaterError past year 9999 waits until the end of 9999, a run_at the job can be read back with', async () => {
    const { id } = await t.jobs.enqueue('RETRY_AT_END_OF_TIME', {});
    await drainQueue(t.app, { timeoutMs: 10_000 });
    const job = await t.jobs.get(id);
    expect(job).toMatchObject({ status: 'RETRYING', attempts: 0, snoozes: 1 });
    expect(job.runAt.getTime()).toBeGreaterThan(Date.parse('9999-12-31T00:00:00Z'));
    expect(job.runAt.toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(job.errors).toMatchObject([{ kind: 'retry-later', retryAt: '9999-12-31T23:59:59.999Z' }]);
  });
});
