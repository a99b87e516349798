import { ConveyorClient } from '../conveyor-client';
import { ConveyorHttpError } from '../conveyor-http.error';
import { JobCancelledError, LeaseLostError } from './abort-reasons';
import { failureReport } from './failure-report';
import { PermanentJobError } from './permanent-job.error';
import { RetryLaterError } from './retry-later.error';
import { runWorker } from './run-worker';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A job as a claim hands it out. */
const claimedJob = (id: string) => ({
  id,
  queue: 'q',
  type: 'T',
  payload: {},
  priority: 0,
  attempts: 1,
  maxAttempts: 5,
  runAt: '',
  createdAt: '',
  leaseToken: 't',
  lockedUntil: '',
});

describe('runWorker without a server', () => {
  it('stops and rejects `done` when the claim is refused for its key: waiting cannot fix a 403', async () => {
    const fetchImpl = (async () => json(403, { statusCode: 403, error: 'Forbidden', message: 'needs the worker role' })) as typeof fetch;
    const worker = runWorker('q', () => 'never', { client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }) });
    const err = (await worker.done.catch((e: unknown) => e)) as ConveyorHttpError;
    expect(err).toBeInstanceOf(ConveyorHttpError);
    expect(err.status).toBe(403);
    await expect(worker.stop()).rejects.toBe(err);
  });

  it('backs off and tries again after a 503, honouring Retry-After, and reports the error', async () => {
    let calls = 0;
    const fetchImpl = (async () => {
      calls++;
      return calls === 1
        ? json(503, { statusCode: 503, error: 'Service Unavailable', message: 'down' }, { 'retry-after': '0' })
        : json(200, { jobs: [] });
    }) as typeof fetch;
    const errors: unknown[] = [];
    const worker = runWorker('q', () => 'never', {
      client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }),
      idleBackoff: { minMs: 1, maxMs: 5 },
      onError: (e) => errors.push(e),
    });
    while (calls < 3) await new Promise((r) => setTimeout(r, 5));
    await worker.stop();
    expect(errors).toEqual([expect.objectContaining({ status: 503 })]);
  });

  it('asks a service that is away again at random pauses of 2.5 to 5 s, however long it stays away', async () => {
    jest.useFakeTimers();
    try {
      const claimedAt: number[] = [];
      const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
      // Away for ten minutes of the fake clock, then an idle service.
      const backAt = Date.now() + 600_000;
      const fetchImpl = (async () => {
        claimedAt.push(Date.now());
        if (Date.now() < backAt) throw refused;
        return json(200, { jobs: [] });
      }) as typeof fetch;
      const worker = runWorker('q', () => 'never', {
        client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }),
        idleBackoff: { minMs: 60_000, maxMs: 60_000 },
        onError: () => undefined,
      });
      await jest.advanceTimersByTimeAsync(610_000);
      await worker.stop();
      const pauses = claimedAt.slice(1).map((at, i) => at - claimedAt[i]);
      const heal = claimedAt.find((at) => at >= backAt)! - backAt;
      expect(Math.max(...pauses)).toBeLessThanOrEqual(5_000);
      expect(Math.min(...pauses.slice(10))).toBeGreaterThanOrEqual(2_500);
      expect(heal).toBeLessThanOrEqual(5_000);
      // Jittered: pauses at the cap are not all alike, so workers that lost the service together drift apart.
      expect(new Set(pauses.slice(10)).size).toBeGreaterThan(10);
    } finally {
      jest.useRealTimers();
    }
  });

  /**
   * A worker whose one claim returns one job, held by its handler until the handler's signal fires; every later
   * request is answered by `afterClaim`. Resolves with the signal's reason and every path the worker requested.
   */
  async function abortOfOneClaimedJob(
    afterClaim: (init?: RequestInit) => Promise<Response>,
    options: { leaseMs: number; heartbeatIntervalMs: number; timeoutMs?: number },
  ): Promise<{ reason: unknown; requests: string[] }> {
    const job = claimedJob('j1');
    let claims = 0;
    const requests: string[] = [];
    const fetchImpl = (async (url: string | URL, init?: RequestInit) => {
      const path = new URL(String(url)).pathname;
      requests.push(path);
      if (path.endsWith('/claim')) return json(200, { jobs: claims++ === 0 ? [job] : [] });
      return afterClaim(init);
    }) as typeof fetch;
    let abortedWith: (reason: unknown) => void;
    const aborted = new Promise<unknown>((resolve) => (abortedWith = resolve));
    const handler = (_job: unknown, context: { signal: AbortSignal }) =>
      new Promise<never>(() => context.signal.addEventListener('abort', () => abortedWith(context.signal.reason), { once: true }));
    const worker = runWorker('q', handler, {
      client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl, timeoutMs: options.timeoutMs }),
      leaseMs: options.leaseMs,
      heartbeatIntervalMs: options.heartbeatIntervalMs,
      idleBackoff: { minMs: 1000, maxMs: 1000 },
      onError: () => undefined,
    });
    const reason = await aborted;
    await worker.stop();
    return { reason, requests };
  }

  const reports = (requests: string[]) => requests.filter((p) => p.endsWith('/complete') || p.endsWith('/fail'));

  it('aborts a running job and reports nothing once its lease may have lapsed while heartbeats cannot reach the server', async () => {
    // The network is cut: heartbeats and reports do not arrive.
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const cut = () => Promise.reject(new TypeError('fetch failed', { cause: refused }));
    const { reason, requests } = await abortOfOneClaimedJob(cut, {
      leaseMs: 300,
      heartbeatIntervalMs: 50,
    });
    expect(reason).toBeInstanceOf(LeaseLostError);
    expect(reports(requests)).toEqual([]);
  });

  it('aborts a running job once its lease may have lapsed while heartbeats hang unanswered (packets dropped)', async () => {
    // Nothing answers: each request waits until its own timeout (an hour) or its caller gives up, so no heartbeat
    // fails in time; the lease must be counted lost by the worker's clock alone.
    const unanswered = (init?: RequestInit) =>
      new Promise<never>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    const { reason, requests } = await abortOfOneClaimedJob(unanswered, { leaseMs: 300, heartbeatIntervalMs: 50, timeoutMs: 3_600_000 });
    expect(reason).toBeInstanceOf(LeaseLostError);
    expect(requests.filter((p) => p.endsWith('/heartbeat')).length).toBeGreaterThan(0);
    expect(reports(requests)).toEqual([]);
  });

  it('aborts a running job with JobCancelledError when a heartbeat answers 409 CANCELLED, and reports nothing', async () => {
    const cancelled = () =>
      Promise.resolve(json(409, { statusCode: 409, error: 'Conflict', message: 'Job j1 was cancelled', jobStatus: 'CANCELLED' }));
    const { reason, requests } = await abortOfOneClaimedJob(cancelled, { leaseMs: 30_000, heartbeatIntervalMs: 20 });
    expect(reason).toBeInstanceOf(JobCancelledError);
    expect((reason as JobCancelledError).jobId).toBe('j1');
    expect(reports(requests)).toEqual([]);
  });

  it('aborts with JobCancelledError, and ctx.progress rejects with it, when a progress report answers 409 CANCELLED', async () => {
    const requests: string[] = [];
    let claims = 0;
    const fetchImpl = (async (url: string | URL) => {
      const path = new URL(String(url)).pathname;
      requests.push(path);
      if (path.endsWith('/claim')) return json(200, { jobs: claims++ === 0 ? [claimedJob('j5')] : [] });
      return json(409, { statusCode: 409, error: 'Conflict', message: 'Job j5 was cancelled', jobStatus: 'CANCELLED' });
    }) as typeof fetch;
    let settle!: (outcome: { signal: unknown; progress: unknown }) => void;
    const seen = new Promise<{ signal: unknown; progress: unknown }>((resolve) => (settle = resolve));
    const worker = runWorker(
      'q',
      async (_job, ctx) => {
        const progress = await ctx.progress({ percent: 10 }).catch((err: unknown) => err);
        settle({ signal: ctx.signal.reason, progress });
      },
      {
        client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }),
        idleBackoff: { minMs: 1000, maxMs: 1000 },
        onError: () => undefined,
      },
    );
    const { signal, progress } = await seen;
    await worker.stop();
    expect(signal).toBeInstanceOf(JobCancelledError);
    expect(progress).toBeInstanceOf(JobCancelledError);
    expect(reports(requests)).toEqual([]);
  });

  it('keeps sending the outcome while the service is away within the lease, and it lands once the service is back', async () => {
    // The service restarts just as the handler returns, and nothing answers for 7 s, heartbeats included: longer than
    // a few tries with backoff last, well within the 30 s lease.
    let backAt = Infinity;
    let completedAt: number | null = null;
    let claims = 0;
    const fetchImpl = (async (url: string | URL) => {
      const path = new URL(String(url)).pathname;
      if (path.endsWith('/claim')) return json(200, { jobs: claims++ === 0 ? [claimedJob('j6')] : [] });
      if (backAt === Infinity) backAt = performance.now() + 7_000;
      if (performance.now() < backAt) {
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
      }
      if (!path.endsWith('/complete')) return json(200, { id: 'j6', lockedUntil: new Date().toISOString() });
      completedAt = performance.now();
      return json(200, { id: 'j6', status: 'COMPLETED', retryInMs: null });
    }) as typeof fetch;
    const worker = runWorker('q', () => 'done', {
      client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }),
      leaseMs: 30_000,
      heartbeatIntervalMs: 100,
      idleBackoff: { minMs: 1000, maxMs: 1000 },
      onError: () => undefined,
    });
    while (worker.running === 0) await new Promise((r) => setTimeout(r, 10));
    while (worker.running > 0) await new Promise((r) => setTimeout(r, 10));
    await worker.stop();
    expect(completedAt).not.toBeNull();
    expect(completedAt! - backAt).toBeLessThan(1_000); // told within a heartbeat interval (and a request) of its return
  }, 15_000);

  it("sends a RetryLaterError's time as retryAt to a server older than retryInMs, which refuses that field", async () => {
    const bodies: Record<string, unknown>[] = [];
    let claims = 0;
    const fetchImpl = (async (url: string | URL, init?: RequestInit) => {
      const path = new URL(String(url)).pathname;
      if (path.endsWith('/claim')) return json(200, { jobs: claims++ === 0 ? [claimedJob('j7')] : [] });
      if (!path.endsWith('/fail')) return json(200, { id: 'j7', lockedUntil: new Date().toISOString() });
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      bodies.push(body);
      if ('retryInMs' in body) {
        const details = [{ field: 'retryInMs', problems: ['property retryInMs should not exist'] }];
        return json(400, { statusCode: 400, error: 'Bad Request', message: 'Invalid request: retryInMs', details });
      }
      return json(200, { id: 'j7', status: 'RETRYING', retryInMs: 60_000 });
    }) as typeof fetch;
    const worker = runWorker(
      'q',
      () => {
        throw new RetryLaterError(60_000, 'busy');
      },
      {
        client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }),
        idleBackoff: { minMs: 1000, maxMs: 1000 },
        onError: () => undefined,
      },
    );
    while (bodies.length === 0) await new Promise((r) => setTimeout(r, 10));
    while (worker.running > 0) await new Promise((r) => setTimeout(r, 10));
    await worker.stop();
    expect(bodies).toEqual([
      { leaseToken: 't', error: 'busy', retryInMs: expect.any(Number) },
      { leaseToken: 't', error: 'busy', retryAt: expect.any(String) },
    ]);
    const dueIn = new Date(bodies[1].retryAt as string).getTime() - Date.now();
    expect(dueIn).toBeGreaterThan(50_000);
    expect(dueIn).toBeLessThanOrEqual(60_000);
  });

  it('hands the job back when a heartbeat gets through after the lease was counted lost', async () => {
    let signalled!: () => void;
    const lapsed = new Promise<void>((resolve) => (signalled = resolve));
    const requests: string[] = [];
    let claims = 0;
    const fetchImpl = (async (url: string | URL) => {
      const path = new URL(String(url)).pathname;
      requests.push(path);
      if (path.endsWith('/claim')) return json(200, { jobs: claims++ === 0 ? [claimedJob('j4')] : [] });
      if (path.endsWith('/hand-back')) return json(200, { id: 'j4', status: 'PENDING', retryInMs: null });
      // Heartbeats arrive, but are answered only after the worker counted its lease lost.
      await lapsed;
      return json(200, { id: 'j4', lockedUntil: new Date().toISOString() });
    }) as typeof fetch;
    const worker = runWorker(
      'q',
      (_job, ctx) => new Promise<never>(() => ctx.signal.addEventListener('abort', () => signalled(), { once: true })),
      {
        client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }),
        leaseMs: 300,
        heartbeatIntervalMs: 50,
        idleBackoff: { minMs: 1000, maxMs: 1000 },
        onError: () => undefined,
      },
    );
    await lapsed;
    while (!requests.includes('/jobs/j4/hand-back')) await new Promise((resolve) => setTimeout(resolve, 5));
    await worker.stop();
    expect(requests.filter((p) => p.endsWith('/complete') || p.endsWith('/fail'))).toEqual([]);
  });

  it('leaves no lease timer behind when a heartbeat in flight is answered after the job was reported', async () => {
    const job = claimedJob('j3');
    let claims = 0;
    let answerHeartbeat!: () => void;
    const heartbeatSent = new Promise<void>((sent) => {
      answerHeartbeat = sent;
    });
    let heartbeatAnswered!: () => void;
    const answered = new Promise<void>((resolve) => (heartbeatAnswered = resolve));
    const fetchImpl = (async (url: string | URL) => {
      const path = new URL(String(url)).pathname;
      if (path.endsWith('/claim')) return json(200, { jobs: claims++ === 0 ? [job] : [] });
      if (path.endsWith('/complete')) return json(200, { id: 'j3', status: 'COMPLETED', retryInMs: null });
      // The heartbeat: answered only once the job has been reported and the worker stopped.
      answerHeartbeat();
      await answered;
      return json(200, { id: 'j3', lockedUntil: new Date().toISOString() });
    }) as typeof fetch;
    // The job runner's own timers, followed from creation to their end: a count of every Timeout in the process would
    // also see timers of whatever else runs in it (another spec's connections closing).
    const runnerTimers = followTimersFrom(/job-runner/);
    let signal!: AbortSignal;
    const worker = runWorker(
      'q',
      async (_job, ctx) => {
        signal = ctx.signal;
        await heartbeatSent;
        return 'done';
      },
      {
        client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }),
        leaseMs: 60_000,
        heartbeatIntervalMs: 10,
        idleBackoff: { minMs: 1000, maxMs: 1000 },
        onError: () => undefined,
      },
    );
    while (claims < 1) await new Promise((resolve) => setImmediate(resolve));
    await worker.stop();
    heartbeatAnswered();
    await new Promise((resolve) => setImmediate(resolve));
    expect(signal.aborted).toBe(false);
    const { created, pending } = runnerTimers.stop();
    expect(created).toBeGreaterThan(0);
    expect(pending).toBe(0);
  });

  /**
   * A worker whose first claim returns job `id`, whose handler returns a result; `answer` answers the reports. Resolves,
   * once the run has ended (the worker claims again), with the reports sent and the errors the worker reported.
   */
  async function reportsOfOneResult(id: string, answer: (path: string) => Response): Promise<{ requests: string[]; errors: unknown[] }> {
    let claims = 0;
    const requests: string[] = [];
    const errors: unknown[] = [];
    const fetchImpl = (async (url: string | URL) => {
      const path = new URL(String(url)).pathname;
      if (path.endsWith('/claim')) return json(200, { jobs: claims++ === 0 ? [claimedJob(id)] : [] });
      requests.push(path);
      return answer(path);
    }) as typeof fetch;
    const worker = runWorker('q', () => 'a result', {
      client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }),
      leaseMs: 60_000,
      idleBackoff: { minMs: 1000, maxMs: 1000 },
      onError: (e) => errors.push(e),
    });
    while (claims < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await worker.stop();
    return { requests: requests.filter((p) => !p.endsWith('/heartbeat')), errors };
  }

  const outcome = (id: string, status: string) => json(200, { id, status, retryInMs: null });
  const tooLarge = () => json(413, { statusCode: 413, error: 'Payload Too Large', message: 'request entity too large' });

  it('sends a refused result once: a failure report that must be retried does not send the result again', async () => {
    let fails = 0;
    const { requests, errors } = await reportsOfOneResult('j5', (path) => {
      if (path.endsWith('/complete')) return tooLarge();
      return fails++ === 0
        ? json(503, { statusCode: 503, error: 'Service Unavailable', message: 'down' }, { 'retry-after': '0' })
        : outcome('j5', 'RETRYING');
    });
    expect(requests).toEqual(['/jobs/j5/complete', '/jobs/j5/fail', '/jobs/j5/fail']);
    expect(errors.map((e) => (e as ConveyorHttpError).status)).toEqual([413, 503]);
  });

  it('does not blame the result for a 400 about something else (the lease token)', async () => {
    const badToken = json(400, {
      statusCode: 400,
      error: 'Bad Request',
      message: 'Invalid request: leaseToken',
      details: [{ field: 'leaseToken', problems: ['leaseToken must be a UUID'] }],
    });
    const { requests, errors } = await reportsOfOneResult('j6', () => badToken.clone());
    expect(requests).toEqual(['/jobs/j6/complete']);
    expect(errors).toEqual([expect.objectContaining({ status: 400 })]);
  });

  /**
   * A server that claims job `id` for the first claim and answers it `delayMs` later, as a real fetch does: not at all
   * if the request was aborted meanwhile (the claim is committed on the server either way). Later claims are empty.
   */
  function slowFirstClaim(id: string, delayMs: number): { fetchImpl: typeof fetch; requests: string[] } {
    let claims = 0;
    const requests: string[] = [];
    const fetchImpl = (async (url: string | URL, init?: RequestInit) => {
      const path = new URL(String(url)).pathname;
      requests.push(path);
      if (!path.endsWith('/claim')) return json(200, { id, status: 'READY' });
      if (claims++ > 0) return json(200, { jobs: [] });
      return new Promise<Response>((resolve, reject) => {
        const timer = setTimeout(() => resolve(json(200, { jobs: [claimedJob(id)] })), delayMs);
        init?.signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(init.signal!.reason);
        });
      });
    }) as typeof fetch;
    return { fetchImpl, requests };
  }

  it('hands back at once the jobs of a claim answered after the lease less a heartbeat interval, instead of leaving them to their lease', async () => {
    const { fetchImpl, requests } = slowFirstClaim('j7', 400);
    let ran = false;
    const worker = runWorker('q', () => (ran = true), {
      client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }),
      leaseMs: 300,
      heartbeatIntervalMs: 100,
      idleBackoff: { minMs: 50, maxMs: 50 },
      onError: () => undefined,
    });
    const deadline = Date.now() + 3000;
    while (!requests.includes('/jobs/j7/hand-back') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await worker.stop();
    expect(requests).toContain('/jobs/j7/hand-back');
    expect(ran).toBe(false);
  });

  it('works with a heartbeat interval that is not a whole number of milliseconds', async () => {
    const { fetchImpl, requests } = slowFirstClaim('j8', 0);
    const errors: unknown[] = [];
    const worker = runWorker('q', () => 'done', {
      client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }),
      leaseMs: 10_000,
      heartbeatIntervalMs: 10_000 / 3,
      idleBackoff: { minMs: 50, maxMs: 50 },
      onError: (e) => errors.push(e),
    });
    const deadline = Date.now() + 3000;
    while (!requests.includes('/jobs/j8/complete') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await worker.stop();
    expect(requests).toContain('/jobs/j8/complete');
    expect(errors).toEqual([]);
  });

  it('stops and rejects `done` when fetch will not send the claim at all: a bad header value does not get better', async () => {
    const fetchImpl = (async () => {
      throw new TypeError('Headers.append: "a\\nb" is an invalid header value.');
    }) as typeof fetch;
    const worker = runWorker('q', () => 'never', {
      client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }),
      onError: () => undefined,
    });
    const err = (await worker.done.catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/invalid header value/);
  });

  it('checks its options', () => {
    const client = new ConveyorClient({ baseUrl: 'http://h' });
    expect(() => runWorker('q', () => 1, {})).toThrow(TypeError);
    expect(() => runWorker('q', () => 1, { client, concurrency: 0 })).toThrow(RangeError);
    expect(() => runWorker('q', () => 1, { client, leaseMs: 1000, heartbeatIntervalMs: 1000 })).toThrow(RangeError);
  });
});

describe('failureReport', () => {
  it('turns control errors into what they ask for, and anything else into a failed attempt', () => {
    const at = new Date('2030-01-01T00:00:00Z');
    expect(failureReport(new RetryLaterError(at, 'busy'))).toEqual({ error: 'busy', retryAt: at });
    expect(failureReport(new PermanentJobError('never'))).toMatchObject({ error: 'never', permanent: true, stack: expect.any(String) });
    expect(failureReport(new TypeError('bad'))).toMatchObject({
      error: 'bad',
      errorName: 'TypeError',
      stack: expect.stringContaining('TypeError: bad'),
    });
    expect(failureReport(new Error(''))).toMatchObject({ error: 'Error' });
    expect(failureReport({ code: 7 })).toEqual({ error: 'Non-error thrown: {"code":7}' });
    expect(failureReport('x'.repeat(10_000)).error.length).toBe(4_000);
  });

  it("sends a RetryLaterError's time as a delay from now, which the service counts on its own clock; one past a year as a time", () => {
    const report = failureReport(new RetryLaterError(60_000, 'busy'));
    expect(report).toEqual({ error: 'busy', retryInMs: expect.any(Number) });
    expect(report.retryInMs).toBeGreaterThan(59_000);
    expect(report.retryInMs).toBeLessThanOrEqual(60_000);
    expect(failureReport(new RetryLaterError(-5_000))).toMatchObject({ retryInMs: 0 });
    const farOff = new Date(Date.now() + 400 * 86_400_000);
    expect(failureReport(new RetryLaterError(farOff, 'next year'))).toEqual({ error: 'next year', retryAt: farOff });
  });

  it('reports an Error whose stack is no text by its message, without a stack', () => {
    const error = new Error('boom');
    Object.defineProperty(error, 'stack', { value: { frames: [] } });
    expect(failureReport(error)).toEqual({ error: 'boom', errorName: 'Error' });
  });

  it("keeps every field within the server's limits and text, whatever the error's name and message were set to", () => {
    const longName = new Error('boom');
    longName.name = 'N'.repeat(300);
    expect(failureReport(longName).errorName).toBe('N'.repeat(200));
    const odd = new Error('boom');
    Object.assign(odd, { message: 42, name: { kind: 'odd' } });
    expect(failureReport(odd)).toMatchObject({ error: 'Error', errorName: 'Error' });
  });
});

describe('RetryLaterError', () => {
  it.each([NaN, Infinity, new Date('next tuesday')])('refuses %p with a RangeError that names it', (when) => {
    expect(() => new RetryLaterError(when)).toThrow(
      new RangeError(`RetryLaterError needs a valid Date or a finite delay in milliseconds; got ${String(when)}`),
    );
    expect(() => new RetryLaterError(when)).toThrow(RangeError);
  });
});

/**
 * Follows the timers set from code whose stack matches `from` until `stop()`, which restores setTimeout and clearTimeout
 * and says how many were set and how many are still pending (neither fired nor cleared).
 */
function followTimersFrom(from: RegExp): { stop(): { created: number; pending: number } } {
  const { setTimeout: realSet, clearTimeout: realClear } = jest.requireActual<typeof import('node:timers')>('node:timers');
  const pending = new Set<unknown>();
  let created = 0;
  const setSpy = jest.spyOn(global, 'setTimeout').mockImplementation(((
    callback: (...args: unknown[]) => void,
    ms?: number,
    ...args: unknown[]
  ) => {
    const handle: NodeJS.Timeout = realSet(() => {
      pending.delete(handle);
      callback(...args);
    }, ms);
    if (from.test(new Error().stack ?? '')) {
      created++;
      pending.add(handle);
    }
    return handle;
  }) as typeof setTimeout);
  const clearSpy = jest.spyOn(global, 'clearTimeout').mockImplementation((handle) => {
    pending.delete(handle);
    realClear(handle as NodeJS.Timeout);
  });
  return {
    stop: () => {
      setSpy.mockRestore();
      clearSpy.mockRestore();
      return { created, pending: pending.size };
    },
  };
}
