import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { LivePublisher } from '../observation/live/live-publisher.service';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { ConveyorEvents } from '../observation/events/conveyor-events.service';
import { HandlerRegistry } from '../handlers/handler-registry.service';
import { Job } from '../job/job';
import { jobLog } from '../observation/logging/job-log-fields';
import { ClaimFilter } from '../storage/statements/claim-filter.interface';
import { FinishRow } from '../storage/statements/finish-row';
import { JobCancelledError } from '../errors/job-cancelled.error';
import { MESSAGES } from '../errors/conveyor.messages';
import { LeaseLostError } from '../errors/lease-lost.error';
import { WorkerShutdownError } from '../errors/worker-shutdown.error';
import { ClaimTrigger } from './claim-trigger';
import { Completer } from './completer.service';
import { EarlyCancels } from './early-cancels';
import { PausesNoticed } from './pauses-noticed';
import { HeldJob, HeldLease } from './held-job';
import { HeldJobs } from './held-jobs';
import { LeaseLapseCheck } from './lease-lapse-check';
import { PrefetchSizer } from './prefetch-sizer';
import { ClaimedAhead } from './claimed-ahead';
import { ConcurrencyCaps } from './concurrency-caps';
import { JobExecutor } from './job-executor.service';
import { AttemptReports, createAttemptReports } from './attempt-reports';
import { logOutcome } from './job-outcome-log';
import { handBackRow, outcomeOf } from './outcome-rows';
import { unrefSleep } from './unref-sleep';

/** Snapshot of the pool for health and metrics. */
export interface PoolStats {
  concurrency: number;
  running: number;
  buffered: number;
  finishing: number;
}

/**
 * Longest a stopping pool waits for the last outcomes and hand-backs to be written, after the grace period: a database
 * that is unreachable then holds up the exit no longer than this (the jobs run again once their leases expire).
 */
export const FINAL_WRITES_MS = 5_000;

/**
 * The in-process worker pool.
 *
 * Every claimed job is *held* until its outcome is written: first `buffered` (claimed, waiting for a
 * slot), then `running`, then `finishing` (outcome queued in the Completer). The pool asks for at most
 * `concurrency + prefetch - running - buffered` more jobs, the buffered ones their caps hold back not counted
 * (backpressure; the prefetch adapts to the start rate unless set, see PrefetchSizer; the buffer is ClaimedAhead),
 * and excludes from the claim the queues and types already at their caps. A slot frees the moment a handler settles — the database write happens
 * in the background, in batches — and the next buffered job starts at once, so handlers do not wait on
 * a round trip while work is ready.
 *
 * A job is started only while its lease is certainly still ours by this process's clock (see `leaseMargin`): a
 * buffered job whose lease could have lapsed — its heartbeats did not reach the database, say — may already have
 * been rescued and run elsewhere, so it is dropped unrun, and running ones are aborted at that moment by a timer of
 * the pool's own (not when a heartbeat fails: on a network that silently drops packets the heartbeat hangs until
 * its statement deadline, by when the sweeper may have handed the job to another worker).
 *
 * Shutdown: buffered jobs are handed back at once; running ones get `shutdownGraceMs` (or until
 * `hurry()`), then their signals fire and they are handed back too — ready again, attempt refunded —
 * so nothing is left RUNNING for the sweeper to find.
 */
@Injectable()
export class WorkerPool {
  private readonly logger = new Logger('Conveyor:Worker');
  private readonly held = new HeldJobs();
  private readonly caps: ConcurrencyCaps;
  private readonly buffer: ClaimedAhead;
  private running = 0;
  /** What every attempt may report while it runs. */
  private readonly reports: AttemptReports;
  private accepting = false;
  private lastClaimCapped = false;
  private readonly changeListeners = new Set<() => void>();
  private readonly prefetch: PrefetchSizer;
  private readonly earlyCancels = new EarlyCancels();
  private readonly pausesNoticed = new PausesNoticed();
  /** Aborts and drops held jobs the moment their leases may have lapsed, whatever the heartbeat is doing. */
  private readonly lapseCheck = new LeaseLapseCheck(() => this.lapsedDropped());

  constructor(
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    private readonly db: ConveyorDatabase,
    private readonly registry: HandlerRegistry,
    private readonly executor: JobExecutor,
    private readonly completer: Completer,
    private readonly events: ConveyorEvents,
    private readonly trigger: ClaimTrigger,
    @Optional() private readonly live?: LivePublisher,
  ) {
    this.prefetch = new PrefetchSizer(options.prefetch, 2 * options.claimBatchSize);
    this.caps = new ConcurrencyCaps(options.queueConcurrency);
    this.buffer = new ClaimedAhead(this.caps);
    this.reports = createAttemptReports(db, options.leaseMs, this, live);
  }

  start(): void {
    this.accepting = true;
  }

  get isAccepting(): boolean {
    return this.accepting;
  }

  stats(): PoolStats {
    return {
      concurrency: this.options.concurrency,
      running: this.running,
      buffered: this.buffer.size,
      finishing: this.held.size - this.running - this.buffer.size,
    };
  }

  /** Free room for more claimed jobs (0 while stopping or while outcomes pile up unwritten). */
  freeCapacity(): number {
    if (!this.accepting) return 0;
    if (this.completer.backlog > this.options.completionBatchSize * 10) return 0;
    return Math.max(0, this.options.concurrency + this.prefetch.current - this.running - this.buffer.startable);
  }

  /**
   * Whether a claim made now would have room for `rows` besides `reserved` more jobs, and run every one of them
   * here (a registered handler, not an external type). Queue and type caps are not checked.
   */
  runsAtOnce(rows: readonly { type: string }[], reserved: number): boolean {
    if (rows.length + reserved > this.claimRoom()) return false;
    for (const row of rows) if (!this.registry.has(row.type) || !this.runsHere(row.type)) return false;
    return true;
  }

  /** How many jobs the next claim may take: the free room, at most one claim batch. */
  private claimRoom(): number {
    return Math.min(this.freeCapacity(), this.options.claimBatchSize);
  }

  /** Types declared external are left to HTTP workers even when a handler for them is registered here. */
  private runsHere(type: string): boolean {
    return !this.options.externalTypes.includes(type);
  }

  /**
   * Calls `listener` whenever a held job leaves the pool or a slot frees up (drainQueue re-checks the queue then);
   * returns the function that removes it.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** True when a refill is worth a query: nothing buffered beyond half the prefetch. */
  wantsRefill(): boolean {
    return this.freeCapacity() > 0 && this.buffer.startable <= this.prefetch.current / 2;
  }

  /**
   * The claim to make now, or null when there is no room or nothing this worker can run. When every type it asks for
   * is capped, it asks for no more than their caps let start and the prefetch: as many as start while a claim is in
   * flight, so quick capped jobs are still buffered, and slow ones are left for other instances.
   */
  claimRequest(): ClaimFilter | null {
    const free = this.claimRoom();
    if (free === 0) return null;
    const local = this.registry.all().filter((h) => this.runsHere(h.type));
    const { types, excludedQueues, capped, room } = this.caps.claimScope(local, this.buffer.waitingJobs());
    if (types.length === 0) return null;
    this.lastClaimCapped = capped;
    return { types, excludedQueues, limit: room === null ? free : Math.min(free, room + this.prefetch.current) };
  }

  /**
   * Whether the last claim request left out a queue or type at its concurrency cap: work may wait there
   * that a slot freeing up could take, so the poller claims again on capacity even after a short claim.
   */
  get claimWasCapped(): boolean {
    return this.lastClaimCapped;
  }

  /**
   * Takes freshly claimed jobs and starts as many as slots allow. `claimSentAt` is the performance.now() at which
   * the claim statement was sent: their leases run from no earlier.
   */
  accept(jobs: Job[], claimSentAt: number): void {
    this.prefetch.claimAnswered(claimSentAt, performance.now());
    const validUntil = claimSentAt + this.options.leaseMs - this.leaseMargin;
    for (const job of jobs) {
      const handler = this.registry.get(job.type);
      if (!handler) continue; // cannot happen: claims filter on registered types
      if (this.earlyCancels.take(job.id, job.leaseToken)) continue; // CANCELLED already: nothing to run or write
      const held = new HeldJob(job, handler);
      held.leaseValidUntil = validUntil;
      this.held.add(held);
      if (!this.accepting) {
        this.finish(held, handBackRow(job, this.options.workerId));
        continue;
      }
      if (this.pausesNoticed.mayPredate(job.queue, claimSentAt)) {
        this.finish(held, handBackRow(job, this.options.workerId, MESSAGES.queuePaused));
        continue;
      }
      this.buffer.add(held);
    }
    this.pausesNoticed.claimAnswered(claimSentAt);
    if (jobs.length > 0) this.lapseCheck.arm(validUntil);
    this.dispatch();
  }

  /** Lease id/token of every job still held (buffered, running, or outcome not yet written). */
  heldLeases(): HeldLease[] {
    return this.held.leases();
  }

  /**
   * A heartbeat sent at `sentAt` (performance.now()) extended these leases. Unlike `heldLeases`, this is called
   * after an await: a job may have finished meanwhile, or be held again by a later attempt, and is skipped.
   */
  leasesExtended(leases: Iterable<HeldLease>, sentAt: number): void {
    const validUntil = sentAt + this.options.leaseMs - this.leaseMargin;
    for (const lease of leases) {
      const held = this.held.holding(lease);
      if (held && held.leaseValidUntil < validUntil) held.leaseValidUntil = validUntil;
    }
  }

  /**
   * Drops every held job whose lease may have lapsed by this process's clock (no heartbeat extended it in time): aborts
   * it if running, drops it if buffered, and writes nothing for it.
   */
  dropLapsedLeases(): void {
    const lapsed = this.held.lapsedBy(performance.now());
    if (lapsed.length > 0) this.markLost(lapsed);
  }

  /** Drops what lapsed; answers when the next held lease may lapse (Infinity when none is held). */
  private lapsedDropped(): number {
    this.dropLapsedLeases();
    return this.held.nextLapse();
  }

  /**
   * How long before its lease ends, by this process's clock, a job counts as lost: one heartbeat interval, so a
   * job is never started without a heartbeat due before its lease could lapse.
   */
  private get leaseMargin(): number {
    return this.options.heartbeatIntervalMs;
  }

  /**
   * The heartbeat found these claims gone: stop their handlers and drop them, writing nothing. A claim this process no
   * longer holds is skipped — also when it holds the job again under a later attempt's token, which the finding is
   * not about.
   */
  markLost(leases: HeldLease[]): void {
    for (const lease of leases) {
      const held = this.held.holding(lease);
      if (!held || held.state === 'finishing') continue;
      this.events.emit('stale', lease.id, this.options.workerId);
      this.logger.warn(jobLog('Lost the claim on a job (lease expired); its result will not be written', held.job, this.options.workerId));
      this.giveUp(held, new LeaseLostError(lease.id));
    }
    this.dispatch(); // recounts the cap-blocked jobs among those left, once every lost one is out
    this.roomFreed();
  }

  /** Gives up an attempt whose outcome must not be written: a buffered job is dropped unrun, a running one aborted. */
  private giveUp(held: HeldJob, reason: Error): void {
    held.lost = true;
    if (held.state === 'buffered') {
      this.buffer.remove(held);
      this.held.release(held);
    } else {
      held.abort(reason);
    }
  }

  /**
   * An operator cancelled a job this process may hold (a cancel notice): it is CANCELLED in the database and its lease
   * token cleared, so nothing written for it here will be stored. A running attempt is aborted (its signal fires with
   * JobCancelledError), a buffered one dropped unrun; an outcome already queued finds the token gone. A notice for
   * another token (the job was retried and claimed again since) changes nothing; one for a job not held yet is kept, in
   * case the claim that took it is still being answered. Answers whether the job was held.
   */
  cancelled(jobId: string, token: string): boolean {
    const held = this.held.get(jobId);
    if (!held) {
      this.earlyCancels.remember(jobId, token);
      return false;
    }
    if (held.token !== token) return false;
    held.cancelled = true;
    if (held.state === 'finishing') return true;
    this.logger.log(
      jobLog('Job cancelled by an operator while held here; its outcome will not be written', held.job, this.options.workerId),
    );
    this.giveUp(held, new JobCancelledError(jobId));
    this.dispatch(); // recounts the cap-blocked jobs among those left
    this.roomFreed();
    return true;
  }

  /**
   * An operator paused `queue` (a pause notice): the jobs of that queue claimed ahead and not started yet are handed
   * back unrun (PENDING, attempt refunded), so a pause stops the queue's work short of what already runs, as it would
   * have had they not been claimed early. Running attempts go on. So are the queue's jobs an answer to a claim sent
   * before the notice arrived brings (see accept).
   */
  queuePaused(queue: string): void {
    this.pausesNoticed.noticed(queue);
    const back = this.buffer.takeQueue(queue);
    if (back.length === 0) return;
    this.logger.log(`Handing back ${back.length} jobs claimed ahead: their queue "${queue}" was paused`);
    for (const held of back) this.finish(held, handBackRow(held.job, this.options.workerId, MESSAGES.queuePaused));
    this.dispatch(); // recounts the cap-blocked jobs among those left
    this.roomFreed();
  }

  /**
   * Stops taking work and empties the pool: buffered jobs are handed back now, running ones after
   * the grace period (or as soon as `hurry` resolves), then every outcome is written. `claimsEnded` resolves when the
   * poller's last claim has returned: the jobs a claim still in flight takes are RUNNING under this worker's lease, and
   * are handed back with the rest, so the final writes wait for it (within FINAL_WRITES_MS).
   */
  async stop(graceMs: number, hurry: Promise<void>, claimsEnded: Promise<void>): Promise<number> {
    this.accepting = false;
    for (const held of this.buffer.takeAll()) this.finish(held, handBackRow(held.job, this.options.workerId));

    let graceTimer: NodeJS.Timeout | undefined;
    let hurried = false;
    await Promise.race([
      this.whenIdle(),
      new Promise<void>((r) => (graceTimer = setTimeout(r, graceMs))),
      hurry.then(() => (hurried = true)),
    ]);
    clearTimeout(graceTimer);
    if (this.running > 0) {
      const when = hurried ? 'at once, as asked again to stop' : 'after the shutdown grace period';
      this.logger.warn(`Handing back ${this.running} running jobs ${when}`);
      for (const held of this.held.running()) held.abort(new WorkerShutdownError());
      await this.whenIdle();
    }
    const writesBy = Date.now() + FINAL_WRITES_MS;
    let claimAnswered = false;
    await Promise.race([claimsEnded.then(() => (claimAnswered = true)), unrefSleep(FINAL_WRITES_MS)]);
    if (!claimAnswered) this.logger.warn('A claim was still unanswered at shutdown; the jobs it took wait for their leases to expire');
    const unwritten = await this.completer.drain(Math.max(0, writesBy - Date.now()));
    this.lapseCheck.stop();
    return unwritten;
  }

  private whenIdle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const stopListening = this.onChange(() => {
        if (this.running > 0) return;
        stopListening();
        resolve();
      });
    });
  }

  /** Starts buffered jobs, in claim order, while slots are free and their caps allow (ClaimedAhead.startWhile). */
  private dispatch(): void {
    this.buffer.startWhile(this.slotFree, this.startBuffered);
  }

  private readonly slotFree = (): boolean => this.running < this.options.concurrency;

  private readonly startBuffered = (held: HeldJob): void => {
    if (held.leaseValidUntil <= performance.now()) this.dropUnstarted(held);
    else this.runOne(held);
  };

  /** A buffered job whose lease may have lapsed: it may run elsewhere already, so it is not started here. */
  private dropUnstarted(held: HeldJob): void {
    held.lost = true;
    this.held.release(held);
    this.events.emit('stale', held.job.id, this.options.workerId);
    this.logger.warn(jobLog('Dropped a claimed job unrun: its lease may have lapsed before a slot freed', held.job, this.options.workerId));
  }

  private runOne(held: HeldJob): void {
    const { job } = held;
    held.state = 'running';
    held.startedAt = performance.now();
    this.prefetch.started();
    this.running++;
    this.caps.started(job);
    this.events.emit('started', job, job.runAt);
    this.executor.execute(held, this.reports, (row) => this.ran(held, row));
  }

  /** An attempt ended: free its slot, queue its outcome (null: the claim was lost, write nothing). */
  private ran(held: HeldJob, row: FinishRow | null): void {
    const { job } = held;
    this.running--;
    this.caps.ended(job);
    if (row === null) {
      this.held.release(held);
    } else {
      this.finish(held, row);
    }
    this.dispatch();
    this.roomFreed();
  }

  /** A slot or buffer space freed up, or a held job left: the poller may claim more. */
  private roomFreed(): void {
    this.trigger.capacityFreed();
    this.changed();
  }

  private changed(): void {
    if (this.changeListeners.size > 0) for (const listener of [...this.changeListeners]) listener();
  }

  private finish(held: HeldJob, row: FinishRow): void {
    held.state = 'finishing';
    const durationMs = held.startedAt ? performance.now() - held.startedAt : 0;
    this.completer.add(
      row,
      (written) => {
        this.held.release(held);
        this.changed();
        if (written) {
          const outcome = outcomeOf(row);
          this.events.emit('finished', held.job, row.status, durationMs, outcome);
          logOutcome(this.logger, held.job, row, this.options.workerId, durationMs, outcome);
          if (row.delay_ms !== undefined && row.delay_ms !== null) this.trigger.jobsDueIn(row.delay_ms);
        } else {
          this.events.emit('stale', held.job.id, this.options.workerId);
          const why = held.cancelled ? 'the job was cancelled meanwhile' : 'the claim was no longer ours';
          this.logger.warn(jobLog(`Stale outcome ignored: ${why}`, held.job, this.options.workerId));
        }
      },
      held,
    );
  }
}
