import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { LiveItem, liveItemOf } from '../observation/live/live-event';
import { LivePublisher } from '../observation/live/live-publisher.service';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { connectionErrorText, isConnectionError } from '../storage/connections/connection-errors';
import { DatabaseOutages } from '../storage/connections/database-outages.service';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { WorkerConnection } from '../storage/connections/worker-connection.service';
import { FinishAnswer, writtenAt } from '../storage/statements/finish-answer.codec';
import { FinishRow } from '../storage/statements/finish-row';
import { AnnouncedChange } from '../storage/statements/live-changes-notify.sql';
import { jobFinishMany } from '../storage/statements/job-finish-many.sql';
import { run } from '../storage/statements/statement';
import { Job } from '../job/job';
import { jobLogFields } from '../observation/logging/job-log-fields';
import { LogRecord } from '../observation/logging/log-record';
import { ClaimTrigger } from './claim-trigger';
import { unrefSleep } from './unref-sleep';

/** Writes in flight at once: one being written while the next batch fills, plus one to catch up. */
const MAX_IN_FLIGHT = 2;

/** Told whether an outcome was written (false: the claim was gone, the write changed nothing). */
export type WrittenCallback = (written: boolean) => void;

/** The attempt an outcome ends, as the pool holds it (HeldJob). */
export interface OutcomeAttempt {
  readonly job: Job;
  /** The handler sent a progress report, so what the row's `progress` holds is not known here. */
  readonly reportedProgress: boolean;
}

interface Pending {
  row: FinishRow;
  /** The attempt the outcome ends: names the job in log lines, and makes its live item. */
  attempt?: OutcomeAttempt;
  done: WrittenCallback;
}

/** Longest pause between tries to write waiting outcomes while the database is unreachable. */
export const OUTCOME_RETRY_MAX_MS = 2000;

/**
 * Writes attempt outcomes back in batches: one statement per batch, flushed when `completionBatchSize`
 * outcomes wait or `completionFlushMs` after the first one, with at most two writes in flight, so batches
 * grow under load instead of queries piling up. The writes go through the worker connection, in line with
 * the claims (see WorkerConnection). When a write ends it tells the ClaimTrigger that room freed up: the
 * pool stops claiming while too many outcomes wait, and this is what starts it again.
 *
 * The statement only touches rows still RUNNING under the same lease token, so a late outcome from a
 * worker that lost its claim changes nothing (the callback hears `false`). While the database is
 * unreachable outcomes stay in memory and the write is retried; the leases of those jobs keep being
 * extended by the heartbeat, and if this process dies first the sweeper re-runs them (at-least-once).
 * A batch that fails for another reason is split and written row by row, so one bad row cannot block
 * the rest.
 */
@Injectable()
export class Completer {
  private readonly logger = new Logger('Conveyor:Completer');
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The pending timer flushes at the next turn of the event loop (not after `completionFlushMs`). */
  private timerIsImmediate = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Outcomes in the writes in flight. */
  private writing = 0;
  private retryDelay = 0;

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly trigger: ClaimTrigger,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    private readonly connection: WorkerConnection,
    private readonly outages: DatabaseOutages,
    @Optional() private readonly live?: LivePublisher,
  ) {}

  /** Outcomes waiting or being written. */
  get backlog(): number {
    return this.queue.length;
  }

  /** Ids of jobs whose outcome is not written yet (their leases must still be extended). */
  pendingIds(): Set<string> {
    return new Set(this.queue.map((p) => p.row.id));
  }

  /** Queues an outcome; `attempt` names the job in log lines and lets its live item be built here. */
  add(row: FinishRow, done: WrittenCallback, attempt?: OutcomeAttempt): void {
    this.queue.push({ row, done, attempt });
    if (this.queue.length >= this.options.completionBatchSize) this.kick(0);
    else this.kick(this.options.completionFlushMs);
  }

  /**
   * Writes everything queued; resolves when the queue is empty or `timeoutMs` has passed, with the number of outcomes
   * left unwritten (their leases expire and the jobs run again).
   */
  async drain(timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    // Every wait ends by the deadline: a write in flight on a dead connection may take its statement deadline.
    const until = (work: Promise<unknown>) => Promise.race([work, unrefSleep(deadline - Date.now())]);
    while ((this.queue.length > 0 || this.inFlight.size > 0) && Date.now() < deadline) {
      if (this.queue.length > 0 && this.inFlight.size < MAX_IN_FLIGHT) {
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
        if (this.retryDelay > 0) await until(unrefSleep(this.retryDelay));
        if (Date.now() >= deadline) break;
        this.startFlush();
      }
      await until(Promise.race(this.inFlight));
    }
    const unwritten = this.queue.length + this.writing;
    if (unwritten > 0) {
      this.logger.warn(`${unwritten} outcomes could not be written before shutdown; their leases will expire and the jobs run again.`);
    }
    return unwritten;
  }

  /**
   * Arms the flush timer for `delayMs` unless one already fires as soon: outcomes arriving once a batch is full
   * each ask for a flush now, and remaking the timer for every one of them would cost a Timeout per job.
   */
  private kick(delayMs: number): void {
    if (this.inFlight.size >= MAX_IN_FLIGHT) return; // a write in flight schedules the next one
    if (this.timer && (delayMs > 0 || this.timerIsImmediate)) return;
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.max(delayMs, this.retryDelay);
    this.timerIsImmediate = wait === 0;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.startFlush();
    }, wait);
  }

  /** Starts one write; when it ends, schedules the next if outcomes are waiting. */
  private startFlush(): void {
    if (this.inFlight.size >= MAX_IN_FLIGHT || this.queue.length === 0) return;
    const write: Promise<void> = this.flush().finally(() => {
      this.inFlight.delete(write);
      if (this.queue.length > 0) this.kick(this.queue.length >= this.options.completionBatchSize ? 0 : this.options.completionFlushMs);
      this.trigger.capacityFreed();
    });
    this.inFlight.add(write);
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, this.options.completionBatchSize);
    if (batch.length === 0) return;
    this.writing += batch.length;
    try {
      await this.write(batch);
      this.retryDelay = 0;
    } catch (err) {
      if (isConnectionError(err)) {
        this.outages.seen();
        this.queue.unshift(...batch);
        this.retryDelay = Math.min(OUTCOME_RETRY_MAX_MS, Math.max(50, this.retryDelay * 2));
        this.logger.warn(
          `Database unavailable; ${this.queue.length} outcomes wait (retry in ${this.retryDelay} ms): ${connectionErrorText(err)}`,
        );
        return;
      }
      this.logger.error(`Outcome batch failed (${(err as Error).message}); writing row by row`);
      for (const p of batch) await this.writeAlone(p);
    } finally {
      this.writing -= batch.length;
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    const { rows } = await run<FinishAnswer>(
      this.connection.runner,
      jobFinishMany(
        this.db.tables,
        batch.map((p) => p.row),
      ),
    );
    const written = writtenAt(rows[0]);
    for (let i = 0; i < batch.length; i++) batch[i].done(written(i));
    if (this.live?.watching) {
      const writtenOnes = batch.filter((_, i) => written(i));
      this.announce(writtenOnes, rows[0].at_us);
    }
  }

  /**
   * Announces written outcomes. An attempt that reported no progress leaves the row's progress null (the claim
   * cleared it, an outcome write does not set it), so its item is known in full, with the write's time; any other
   * outcome is announced for its row to be read.
   */
  private announce(written: Pending[], atUs: string): void {
    const live = this.live as LivePublisher;
    const items: LiveItem[] = [];
    const changes: AnnouncedChange[] = [];
    for (const { row, attempt } of written) {
      if (attempt && !attempt.reportedProgress) items.push(liveItemOf(attempt.job, row.status, atUs, null));
      else changes.push({ id: row.id, status: row.status });
    }
    live.announceItems(items);
    live.announce(changes);
  }

  private async writeAlone(p: Pending): Promise<void> {
    try {
      await this.write([p]);
    } catch (err) {
      if (isConnectionError(err)) {
        this.outages.seen();
        this.queue.unshift(p);
        return;
      }
      // The row itself cannot be stored: record why instead of the outcome, so the job still ends.
      const fallback: FinishRow = { ...p.row, result: null, entry: null, error: `Could not store outcome: ${(err as Error).message}` };
      await this.write([{ ...p, row: fallback }]).catch((e: unknown) => {
        const job = p.attempt ? jobLogFields(p.attempt.job, this.options.workerId) : { jobId: p.row.id, worker: this.options.workerId };
        this.logger.error(new LogRecord('Dropping the outcome of a job: it cannot be stored', { ...job, error: (e as Error).message }));
        p.done(false);
      });
    }
  }
}
