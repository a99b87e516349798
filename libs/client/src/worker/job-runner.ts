import { ConveyorClient } from '../conveyor-client';
import { ConveyorHttpError } from '../conveyor-http.error';
import { sleep } from '../sleep';
import { ClaimedJob, FailureReport, ProgressReport } from '../worker-protocol.types';
import { JobCancelledError, LeaseLostError, WorkerStoppedError } from './abort-reasons';
import { failureReport } from './failure-report';
import { WorkerContext, WorkerHandler } from './worker-handler.types';
import { isTransientFailure, retryDelayOf } from '../transient-failure';

/** Attempts at reporting through network trouble once the worker stopped past its grace period. */
const REPORT_ATTEMPTS = 6;
/** Shortest pause between two tries of a report, also after a Retry-After of 0. */
const MIN_REPORT_PAUSE_MS = 100;

/** What one job run needs from its worker. */
export interface JobRunSettings {
  client: ConveyorClient;
  handler: WorkerHandler;
  workerId: string;
  leaseMs: number;
  heartbeatIntervalMs: number;
  onError: (error: unknown, job?: ClaimedJob) => void;
}

/**
 * Runs one claimed job: heartbeats on a timer while the handler runs, then reports the outcome under the
 * claim's lease token. A 409 or 404 on a heartbeat means the claim is gone (the lease expired and the job
 * was rescued, or an operator cancelled it: `jobStatus: 'CANCELLED'`, the signal's reason is then JobCancelledError):
 * the handler's signal fires and nothing is reported. `handBack()` (the worker stopping past
 * its grace period) fires the signal too, and the job is handed back (`POST /jobs/:id/hand-back`): ready again at
 * once for any worker, without using up an attempt. The attempt ends at whichever comes first of the handler settling and its signal firing.
 *
 * While heartbeats cannot reach the server (a network cut), the run counts its lease as lost once it may have
 * lapsed by this process's clock — when the claim or the last heartbeat that reached the server was sent, plus the
 * lease, less one heartbeat interval: the server may have rescued the job and given it to another worker. A timer
 * armed at that moment fires the handler's signal, whether the heartbeats in flight fail or hang unanswered (packets
 * dropped), and nothing is reported; a job whose claim answer came too late is not started.
 */
export class JobRun {
  private readonly abort = new AbortController();
  private lost = false;
  /** run() has returned: nothing arms the lease timer again (a heartbeat still in flight, a late ctx.heartbeat()). */
  private finished = false;
  /** performance.now() until which the lease is certainly still ours. */
  private leaseValidUntil: number;
  /** Fires at leaseValidUntil unless a heartbeat that reached the server moved it on. */
  private leaseDeadline: ReturnType<typeof setTimeout> | undefined;
  /** The server's refusal of the handler's result, once it refused it. */
  private refusal: ConveyorHttpError | null = null;
  /** The server refused `retryInMs` (it is older than the field): retry times go as `retryAt`. */
  private retryInMsRefused = false;

  /** `claimSentAt`: the performance.now() at which the claim that returned the job was sent. */
  constructor(
    readonly job: ClaimedJob,
    private readonly settings: JobRunSettings,
    claimSentAt: number,
  ) {
    this.leaseValidUntil = this.validUntil(claimSentAt);
  }

  /** Stop waiting for the handler and hand the job back. */
  handBack(): void {
    this.abort.abort(new WorkerStoppedError());
  }

  async run(): Promise<void> {
    const { job, settings } = this;
    if (performance.now() >= this.leaseValidUntil) {
      // The claim's answer came too late to be sure of the lease: not started, and given back if still held.
      this.loseClaim();
      this.giveBack();
      return;
    }
    const timer = setInterval(() => void this.heartbeat().catch(() => undefined), settings.heartbeatIntervalMs);
    this.armLeaseDeadline();
    try {
      const context: WorkerContext = {
        signal: this.abort.signal,
        attempt: job.attempts,
        workerId: settings.workerId,
        heartbeat: () => this.heartbeat(),
        progress: (progress) => this.progress(progress),
      };
      let report: () => Promise<unknown>;
      try {
        const result = await this.race(Promise.resolve().then(() => settings.handler(job, context)));
        report = jsonSafe(result)
          ? () => this.complete(result)
          : () =>
              settings.client.fail(job.id, job.leaseToken, {
                error: 'The handler returned a value JSON cannot hold',
                errorName: 'TypeError',
                permanent: true,
              });
      } catch (err) {
        if (this.lost) return;
        const reason = this.abort.signal.aborted ? this.abort.signal.reason : err;
        report = reason instanceof WorkerStoppedError ? () => settings.client.handBack(job.id, job.leaseToken) : () => this.fail(reason);
      }
      await this.report(report);
    } finally {
      this.finished = true;
      clearInterval(timer);
      clearTimeout(this.leaseDeadline);
    }
  }

  /** Extends the lease; a 409/404 means the claim is gone: abort the handler and throw LeaseLostError. */
  private async heartbeat(): Promise<void> {
    if (this.lost) throw new LeaseLostError(this.job.id);
    if (this.finished) return; // the outcome is written or given up: nothing left to hold
    const sentAt = performance.now();
    try {
      await this.settings.client.heartbeat(this.job.id, this.job.leaseToken, this.settings.leaseMs);
    } catch (err) {
      if (this.finished) return; // answered after the outcome: the job is no longer this run's concern
      if (isClaimGone(err) || performance.now() >= this.leaseValidUntil) throw this.claimGone(err);
      this.settings.onError(err, this.job);
      throw err;
    }
    if (this.lost) {
      // Counted lost while this heartbeat was on its way, and it got through: the job is still this worker's, its
      // handler already stopped. Handing it back readies it now, not when the lease just extended expires.
      this.giveBack();
      throw new LeaseLostError(this.job.id);
    }
    this.leaseValidUntil = Math.max(this.leaseValidUntil, this.validUntil(sentAt));
    this.armLeaseDeadline();
  }

  /** Reports progress under the claim's token; a 409/404 means the claim is gone, as for a heartbeat. */
  private async progress(progress: ProgressReport): Promise<void> {
    if (this.lost) throw new LeaseLostError(this.job.id);
    try {
      await this.settings.client.reportProgress(this.job.id, this.job.leaseToken, progress);
    } catch (err) {
      if (isClaimGone(err)) throw this.claimGone(err);
      throw err;
    }
  }

  /**
   * Loses the claim for the server's refusal `err` (or a lease lapsed by this clock) and returns the reason, the same
   * whichever request learnt it: JobCancelledError when an operator cancelled the job, LeaseLostError otherwise.
   */
  private claimGone(err: unknown): Error {
    const reason = isCancelled(err) ? new JobCancelledError(this.job.id) : new LeaseLostError(this.job.id);
    this.loseClaim(reason);
    return reason;
  }

  /** Hands the unstarted or stopped job back, in the background; a claim already gone needs nothing. */
  private giveBack(): void {
    this.settings.client.handBack(this.job.id, this.job.leaseToken).catch((err: unknown) => {
      if (!isClaimGone(err)) this.settings.onError(err, this.job);
    });
  }

  /** (Re)arms the timer that counts the claim lost once leaseValidUntil has passed. */
  private armLeaseDeadline(): void {
    clearTimeout(this.leaseDeadline);
    if (this.lost || this.finished) return;
    this.leaseDeadline = setTimeout(
      () => {
        if (performance.now() >= this.leaseValidUntil) this.loseClaim();
        else this.armLeaseDeadline();
      },
      Math.max(0, this.leaseValidUntil - performance.now()),
    );
  }

  /** The claim is gone, or may be: the handler's signal fires and nothing will be reported. */
  private loseClaim(reason: Error = new LeaseLostError(this.job.id)): void {
    this.lost = true;
    this.abort.abort(reason);
  }

  private validUntil(sentAt: number): number {
    return sentAt + this.settings.leaseMs - this.settings.heartbeatIntervalMs;
  }

  private race<T>(work: Promise<T>): Promise<T> {
    const signal = this.abort.signal;
    work.catch(() => undefined); // settles after the race is lost: nobody listens any more
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /**
   * Completes with `result`. A result the server refuses (400 naming a field of `result`: it cannot be stored, such as a
   * NUL character; 413: over its body limit) fails the job for good with the server's reason instead: reporting
   * nothing would leave the job RUNNING until its lease ran out, and a retry would redo the handler's work only to be
   * refused again. Once refused, a retried report sends only the failure.
   */
  private async complete(result: unknown): Promise<void> {
    const { client } = this.settings;
    if (this.refusal === null) {
      try {
        await client.complete(this.job.id, this.job.leaseToken, result ?? null);
        return;
      } catch (err) {
        if (!isResultRefused(err)) throw err;
        this.refusal = err;
        this.settings.onError(err, this.job);
      }
    }
    await client.fail(this.job.id, this.job.leaseToken, {
      error: `The server refused the result: ${this.refusal.message}`,
      errorName: this.refusal.name,
      permanent: true,
    });
  }

  /**
   * Fails the attempt for `reason`. A server older than `retryInMs` refuses it (400 naming the field), and a report it
   * refused would go unwritten: the retry time then goes as `retryAt`, by this machine's clock, which it takes.
   */
  private async fail(reason: unknown): Promise<void> {
    const { client } = this.settings;
    const report = failureReport(reason);
    if (report.retryInMs === undefined) {
      await client.fail(this.job.id, this.job.leaseToken, report);
      return;
    }
    try {
      await client.fail(this.job.id, this.job.leaseToken, this.retryInMsRefused ? asRetryAt(report) : report);
    } catch (err) {
      if (this.retryInMsRefused || !isFieldRefused(err, 'retryInMs')) throw err;
      this.retryInMsRefused = true;
      await client.fail(this.job.id, this.job.leaseToken, asRetryAt(report));
    }
  }

  /**
   * Sends the outcome, again through network trouble, a 5xx and a 429 for up to one lease, while the lease may still be
   * ours (the heartbeat goes on extending it): an outcome outlives a service restarted within the lease, instead of its
   * job running again after the sweeper rescued it. A pause is at most a heartbeat interval, so a service that is back
   * is soon told. Once the worker stopped past its grace period it gives up after REPORT_ATTEMPTS, as the process is
   * about to end.
   */
  private async report(send: () => Promise<unknown>): Promise<void> {
    const giveUpAt = performance.now() + this.settings.leaseMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await send();
        return;
      } catch (err) {
        if (isClaimGone(err)) return; // rescued (and maybe run elsewhere) before we reported: nothing to do
        this.settings.onError(err, this.job);
        if (!isTransientFailure(err) || this.lost || performance.now() >= giveUpAt) return;
        if (this.abort.signal.reason instanceof WorkerStoppedError && attempt >= REPORT_ATTEMPTS) return;
        const pause = Math.max(MIN_REPORT_PAUSE_MS, retryDelayOf(err, MIN_REPORT_PAUSE_MS * 2 ** Math.min(attempt, 20)));
        await sleep(Math.min(pause, this.settings.heartbeatIntervalMs));
      }
    }
  }
}

/** 409: the token no longer holds the job; 404: the job is gone altogether. */
function isClaimGone(err: unknown): boolean {
  return err instanceof ConveyorHttpError && (err.status === 409 || err.status === 404);
}

/**
 * The server refused a completion for its result: a body over its limit, or a 400 naming the result (one it cannot
 * store). A 400 about anything else (a malformed lease token) would refuse a failure report just the same.
 */
function isResultRefused(err: unknown): err is ConveyorHttpError {
  if (!(err instanceof ConveyorHttpError)) return false;
  return err.status === 413 || (err.status === 400 && err.fields.some((field) => /^result($|[.[])/.test(field)));
}

/** A 400 naming `field`: a server older than the field refuses it as unknown. */
function isFieldRefused(err: unknown, field: string): boolean {
  return err instanceof ConveyorHttpError && err.status === 400 && err.fields.includes(field);
}

/** A report's retry delay as a time by this machine's clock, the form every server takes. */
function asRetryAt({ retryInMs, ...report }: FailureReport): FailureReport {
  return { ...report, retryAt: new Date(Date.now() + (retryInMs ?? 0)) };
}

/** The server refused because an operator cancelled the job. */
function isCancelled(err: unknown): boolean {
  return err instanceof ConveyorHttpError && err.status === 409 && err.body?.jobStatus === 'CANCELLED';
}

function jsonSafe(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}
