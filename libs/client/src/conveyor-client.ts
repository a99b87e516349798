import { ConveyorClientOptions } from './conveyor-client-options.interface';
import { HttpTransport } from './http-transport';
import {
  BulkAction,
  BulkActionResult,
  Job,
  JobPage,
  JobProgress,
  JobRequest,
  JobStatus,
  ListJobsFilter,
  TERMINAL_STATUSES,
} from './job.types';
import { Instance, Schedule } from './operations.types';
import { serverSentEvents } from './server-sent-events';
import { sleep } from './sleep';
import { isTransientFailure, retryDelayOf } from './transient-failure';
import { WaitForJobTimeoutError } from './wait-for-job-timeout.error';
import { ClaimedJob, ClaimRequest, FailureReport, LeaseReport, OutcomeReport, ProgressReport } from './worker-protocol.types';

/** Options of `waitFor`. */
export interface WaitForJobOptions {
  /** Give up after this long (default 60 000 ms; Infinity never) with a WaitForJobTimeoutError. */
  timeoutMs?: number | undefined;
  /** Pause between polls, when polling (default 500 ms, at least 1). */
  intervalMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Follow the job's live events (`GET /jobs/:id/events`) instead of polling (default true). Without them (an older
   * server, a proxy that refuses event streams, a dropped connection) it polls.
   */
  live?: boolean | undefined;
}

/**
 * A typed client for Conveyor's REST API: submit, read, steer and await jobs, and the calls external
 * workers make (claim, heartbeat, complete, fail; `runWorker` drives them in a loop). Every error answer
 * is thrown as a ConveyorHttpError with the status and the server's error body.
 *
 * @example
 * const conveyor = new ConveyorClient({ baseUrl: 'http://conveyor:3000', apiKey: process.env.CONVEYOR_KEY });
 * const job = await conveyor.submit({ type: 'SEND_EMAIL', payload }, { idempotencyKey: `welcome-${userId}` });
 * const done = await conveyor.waitFor(job.id, { timeoutMs: 30_000 });
 */
export class ConveyorClient {
  private readonly http: HttpTransport;

  constructor(options: ConveyorClientOptions) {
    this.http = new HttpTransport(options);
  }

  /**
   * Submits one job. Repeating an idempotency key with the same request returns the earlier job. The key (the option,
   * or the request's own `idempotencyKey`) travels in the body, where any text is sent as is; a header carries ASCII only.
   */
  async submit<P>(
    request: JobRequest<P>,
    options: { idempotencyKey?: string | undefined; signal?: AbortSignal | undefined } = {},
  ): Promise<Job<P>> {
    const own = request.idempotencyKey;
    if (options.idempotencyKey !== undefined && own !== undefined && own !== options.idempotencyKey) {
      throw new TypeError('submit got two different idempotency keys: the request’s idempotencyKey and options.idempotencyKey');
    }
    const body = toWire({ ...request, idempotencyKey: options.idempotencyKey ?? own });
    return this.http.request('POST', '/jobs', { body, signal: options.signal });
  }

  /** Submits many jobs, all or nothing; the answer is in request order. */
  async submitBatch(requests: JobRequest[], options: { signal?: AbortSignal | undefined } = {}): Promise<Job[]> {
    const res = await this.http.request<{ jobs: Job[] }>('POST', '/jobs/batch', {
      body: { jobs: requests.map(toWire) },
      signal: options.signal,
    });
    return res.jobs;
  }

  get<P = unknown, R = unknown>(id: string, options: { signal?: AbortSignal | undefined } = {}): Promise<Job<P, R>> {
    return this.http.request('GET', `/jobs/${encodeURIComponent(id)}`, { signal: options.signal });
  }

  /** One page, newest first; pass the answer's `nextCursor` as `cursor` for the next one. */
  list(filter: ListJobsFilter = {}, options: { signal?: AbortSignal | undefined } = {}): Promise<JobPage> {
    const { payload, createdFrom, createdTo, ...rest } = filter;
    const time = (t: Date | string | undefined) => (t instanceof Date ? t.toISOString() : t);
    const query = { ...rest, payload: payload && JSON.stringify(payload), createdFrom: time(createdFrom), createdTo: time(createdTo) };
    return this.http.request('GET', '/jobs', { query, signal: options.signal });
  }

  /** Every matching job, page by page. */
  async *iterate(filter: Omit<ListJobsFilter, 'cursor'> = {}): AsyncGenerator<Job> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...filter, cursor });
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  /**
   * SCHEDULED, PENDING, RETRYING or RUNNING → CANCELLED (a 409 once finished); a running job's handler is told to
   * stop and its outcome is not stored. Needs an admin key.
   */
  cancel(id: string): Promise<Job> {
    return this.http.request('POST', `/jobs/${encodeURIComponent(id)}/cancel`);
  }

  /** Makes a SCHEDULED, RETRYING or PENDING job due now (a 409 while running or finished). Needs an admin key. */
  runNow(id: string): Promise<Job> {
    return this.http.request('POST', `/jobs/${encodeURIComponent(id)}/run-now`);
  }

  /** Every cron schedule the answering instance declares, with its last and next tick. */
  async schedules(): Promise<Schedule[]> {
    return (await this.http.request<{ schedules: Schedule[] }>('GET', '/schedules')).schedules;
  }

  /** One cron schedule; a 404 ConveyorHttpError for an unknown name. */
  schedule(name: string): Promise<Schedule> {
    return this.http.request('GET', `/schedules/${encodeURIComponent(name)}`);
  }

  /** Stops a schedule's ticks on every instance until it is resumed. Needs an admin key. */
  pauseSchedule(name: string): Promise<Schedule> {
    return this.http.request('POST', `/schedules/${encodeURIComponent(name)}/pause`);
  }

  /** Resumes a schedule from its next tick; the ticks missed while paused are not enqueued. Needs an admin key. */
  resumeSchedule(name: string): Promise<Schedule> {
    return this.http.request('POST', `/schedules/${encodeURIComponent(name)}/resume`);
  }

  /** Enqueues one job of the schedule now, without moving its regular ticks. Needs an admin key. */
  triggerSchedule(name: string): Promise<Job> {
    return this.http.request('POST', `/schedules/${encodeURIComponent(name)}/trigger`);
  }

  /** The running instances (workers and API-only), with the maintenance leader marked. */
  async instances(): Promise<Instance[]> {
    return (await this.http.request<{ instances: Instance[] }>('GET', '/instances')).instances;
  }

  /** Cancels, retries or deletes up to 500 jobs, each on its own: refusals are reported per job. Needs an admin key. */
  bulk(action: BulkAction, ids: string[]): Promise<BulkActionResult> {
    return this.http.request('POST', `/jobs/bulk/${action}`, { body: { ids } });
  }

  /** DEAD or CANCELLED → PENDING with a fresh attempt budget (a 409 otherwise). Needs an admin key. */
  retry(id: string): Promise<Job> {
    return this.http.request('POST', `/jobs/${encodeURIComponent(id)}/retry`);
  }

  /**
   * Waits until the job is COMPLETED, DEAD or CANCELLED, and returns it in that state: by following its live events,
   * then reading it once; by polling when live events are unavailable or `live` is false. A read that fails for
   * network trouble, a 5xx or a 429 (the server restarting, say) is tried again at the next poll, until `timeoutMs`;
   * any other error answer (404 for an unknown job, 401, 403) rejects at once.
   */
  async waitFor<P = unknown, R = unknown>(id: string, options: WaitForJobOptions = {}): Promise<Job<P, R>> {
    const { timeoutMs = 60_000, intervalMs = 500, signal, live = true } = options;
    if (typeof timeoutMs !== 'number' || !(timeoutMs >= 0)) {
      throw new RangeError(`timeoutMs must be a number of milliseconds from 0 (or Infinity), got ${String(timeoutMs)}`);
    }
    if (typeof intervalMs !== 'number' || !(intervalMs >= 1 && intervalMs < Infinity)) {
      throw new RangeError(`intervalMs must be a number of milliseconds from 1, got ${String(intervalMs)}`);
    }
    const deadline = Date.now() + timeoutMs;
    // A finished stream is read once below; a failed or ended one leaves the polling to find out.
    if (live) await this.followUntilFinished(id, deadline, signal);
    let seen: Job<P, R> | undefined;
    for (;;) {
      let failure: unknown;
      let pauseMs = intervalMs;
      try {
        // A read that hangs (a partition) is cut off near the deadline, and counts as a failed one.
        const job = await this.get<P, R>(id, { signal: untilDeadline(deadline, [signal], MIN_READ_MS) });
        if (TERMINAL_STATUSES.includes(job.status)) return job;
        seen = job;
      } catch (err) {
        signal?.throwIfAborted();
        if (!isTransientFailure(err)) throw err;
        failure = err;
        pauseMs = retryDelayOf(err, intervalMs);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new WaitForJobTimeoutError(id, seen ?? null, timeoutMs, failure);
      await sleep(Math.min(pauseMs, left, MAX_TIMER_MS), signal);
      signal?.throwIfAborted();
    }
  }

  /**
   * Follows the job's live events until one says it finished, or until the deadline, the caller's signal, or the
   * stream failing or ending (the caller's polling then finds out, and reports a timeout or a missing job).
   */
  private async followUntilFinished(id: string, deadline: number, signal?: AbortSignal): Promise<void> {
    if (deadline <= Date.now()) return;
    const done = new AbortController();
    const stop = untilDeadline(deadline, [done.signal, signal])!;
    try {
      const body = await this.http.stream(`/jobs/${encodeURIComponent(id)}/events`, stop);
      for await (const event of serverSentEvents(body)) {
        if (event.event !== 'job') continue;
        const status = (JSON.parse(event.data) as { status?: JobStatus }).status;
        if (status !== undefined && TERMINAL_STATUSES.includes(status)) return;
      }
    } catch {
      // No stream (404 from a server without live events, 503, a network error) or a dropped one: poll instead.
    } finally {
      done.abort();
    }
    signal?.throwIfAborted();
  }

  /** Claims up to `max` ready jobs of a queue for an external worker. Needs a worker key. */
  async claim<P = unknown>(
    queue: string,
    request: ClaimRequest,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<ClaimedJob<P>[]> {
    const res = await this.http.request<{ jobs: ClaimedJob<P>[] }>('POST', `/queues/${encodeURIComponent(queue)}/claim`, {
      body: request,
      signal: options.signal,
    });
    return res.jobs;
  }

  /**
   * Reports a claimed job's progress: `percent` (0–100) and/or `data` (a JSON object of at most 1 KiB). A 409 once
   * the lease token no longer holds the job. Needs a worker key.
   */
  reportProgress(id: string, leaseToken: string, progress: ProgressReport): Promise<JobProgress> {
    return this.http.request('POST', `/jobs/${encodeURIComponent(id)}/progress`, { body: { leaseToken, ...progress } });
  }

  /** Extends a claimed job's lease (a 409 once the lease is lost). */
  heartbeat(id: string, leaseToken: string, leaseMs?: number): Promise<LeaseReport> {
    return this.http.request('POST', `/jobs/${encodeURIComponent(id)}/heartbeat`, { body: { leaseToken, leaseMs } });
  }

  /** Hands a claimed job back unrun: PENDING again at once, the attempt not counted (a 409 once the lease is lost). */
  handBack(id: string, leaseToken: string): Promise<OutcomeReport> {
    return this.http.request('POST', `/jobs/${encodeURIComponent(id)}/hand-back`, { body: { leaseToken } });
  }

  /** Completes a claimed job with its result (a 409 once the lease is lost). */
  complete(id: string, leaseToken: string, result: unknown = null): Promise<OutcomeReport> {
    return this.http.request('POST', `/jobs/${encodeURIComponent(id)}/complete`, { body: { leaseToken, result: result ?? null } });
  }

  /** Reports a failed attempt of a claimed job (a 409 once the lease is lost). */
  fail(id: string, leaseToken: string, failure: FailureReport): Promise<OutcomeReport> {
    const retryAt = failure.retryAt instanceof Date ? failure.retryAt.toISOString() : failure.retryAt;
    return this.http.request('POST', `/jobs/${encodeURIComponent(id)}/fail`, { body: { leaseToken, ...failure, retryAt } });
  }
}

/** A request as JSON: `runAt` as an ISO string. */
function toWire(request: JobRequest): Record<string, unknown> {
  return { ...request, runAt: request.runAt instanceof Date ? request.runAt.toISOString() : request.runAt };
}

/** Least time a read gets, however close the deadline: a last read that cannot succeed would tell nothing. */
const MIN_READ_MS = 1_000;

/** Longest delay a timer takes (2^31 - 1 ms); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A signal that aborts with any of `signals`, or at `deadline` but not before `minMs` from now; nothing is added
 * for a wait without end (Infinity).
 */
function untilDeadline(deadline: number, signals: Array<AbortSignal | undefined>, minMs = 0): AbortSignal | undefined {
  const all = signals.filter((s): s is AbortSignal => s !== undefined);
  if (deadline !== Infinity) all.push(AbortSignal.timeout(Math.min(MAX_TIMER_MS, Math.ceil(Math.max(minMs, deadline - Date.now())))));
  return all.length > 1 ? AbortSignal.any(all) : all[0];
}
