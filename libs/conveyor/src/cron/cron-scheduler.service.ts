import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { DatabaseClock } from '../storage/connections/database-clock.service';
import { SqlRunner } from '../storage/connections/sql-runner.interface';
import { ConveyorEvents } from '../observation/events/conveyor-events.service';
import { insertRows } from '../submission/insert-rows';
import { LivePublisher } from '../observation/live/live-publisher.service';
import { JobRequestValidator } from '../submission/job-request.validator';
import { JobRow, mapJobRow } from '../storage/statements/job-row.mapper';
import { LogRecord } from '../observation/logging/log-record';
import {
  databaseClock,
  NewJobRow,
  run,
  scheduleAdvanceMany,
  scheduleInsertMissing,
  scheduleLockMany,
  scheduleRedefineMany,
} from '../storage/statements';
import { ResolvedSchedule, ScheduleRegistry } from './schedule-registry.service';
import { dueTicks, scheduleDefinition, ScheduleProgress } from './schedule-ticks';

/** Longest the timer sleeps, even when the next tick is further off: the clock offset is measured again. */
const MAX_SLEEP_MS = 60_000;
/** First and longest pause after a failed round (the database is down, say); doubles in between. */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

/** The pause after the n-th failure in a row (n ≥ 1): RETRY_MIN_MS, doubling up to RETRY_MAX_MS. */
function retryPause(failures: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.max(0, failures - 1));
}

/** Idempotency key of the job one schedule enqueues for one tick. */
export function cronJobKey(name: string, tick: Date): string {
  return `cron:${name}:${tick.toISOString()}`;
}

/**
 * The timekeeper: turns cron schedules into jobs, each tick exactly once across all instances, close to
 * the tick, and without double or missed runs across restarts.
 *
 * Every instance runs it (not only the maintenance leader: leadership changes hands only once per
 * maintenance interval, and a tick falling in that gap would be late). A round is one transaction:
 * lock the schedules' rows in `conveyor_schedules` (in name order, so instances never deadlock), read the
 * database clock, enqueue every due tick — those after the schedule's `last_tick`, up to now — and advance
 * `last_tick`. When the instances' timers fire together, one holds the locks; the others wait, then read the
 * advanced ticks and find nothing to do. As a last line, each job carries the idempotency key
 * `cron:<schedule>:<tick ISO>` and the insert skips a key that exists, so one tick is one job even if the
 * progress row were lost or moved back.
 *
 * Ticks are due by the database's clock, so instances with skewed clocks agree; each round reads that clock
 * (DatabaseClock keeps this host's estimate of it) and the timer is armed for the next tick in database time.
 *
 * Restarts: the progress row survives, so the first round after a start enqueues the ticks missed while no
 * instance ran — at most `catchUp` of them, the newest (default 1: a missed schedule runs once, now, like
 * anacron or a Kubernetes CronJob); older ones are skipped with a warning. A schedule seen for the first
 * time starts from now, with no backlog. Each job's `runAt` is its tick, so a late one shows which tick it
 * stands for and older ticks are claimed first.
 *
 * Pausing (ScheduleControl) is a flag on the progress row, read under the same lock: a paused schedule's rounds
 * enqueue nothing, on every instance, and resuming starts from the first tick after the resume (schedule-ticks.ts).
 * A paused schedule still arms the timer, so an instance wakes for its ticks and notices a resume made elsewhere.
 *
 * Redefinition: the row records the definition (expression and time zone) its ticks followed. A schedule whose
 * definition changed in the code owes no tick of the new one from before the first round of an instance running it
 * (`since`): those fell while it did not exist, and the old one's ticks stood for them (moving a daily job from 03:00
 * to 04:00 after it ran at 03:00 must not run it again at once). So a round that finds another definition in the row
 * moves the progress mark to its own `since` (never back) and records its own. During a rolling deploy the old and
 * new instances find each other's definition in turn: an old instance's `since` lies before the mark and moves
 * nothing, a new one's moves the mark at most to its start, so each enqueues its own definition's ticks, once each.
 */
@Injectable()
export class CronScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Conveyor:Cron');
  private schedules: ResolvedSchedule[] = [];
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;
  private stopped = false;
  private registered = false;
  private failures = 0;
  /** The database clock at this instance's first committed round: where a schedule's new definition starts (see Redefinition). */
  private since: Date | null = null;
  /** Schedules that failed on their own (see isolated()): failures in a row, and when to try again (database clock). */
  private readonly failingSchedules = new Map<string, { failures: number; retryAt: number }>();

  constructor(
    private readonly registry: ScheduleRegistry,
    private readonly db: ConveyorDatabase,
    private readonly validator: JobRequestValidator,
    private readonly events: ConveyorEvents,
    private readonly live: LivePublisher,
    private readonly clock: DatabaseClock,
  ) {}

  /**
   * Checks every schedule (a bad one fails start-up with a CronScheduleError) and runs the first round,
   * which catches up on ticks missed while no instance ran. Its own lifecycle hooks, rather than the worker
   * orchestrator's: it enqueues, so it runs on API-only instances too, and it depends on nothing the
   * orchestrator starts or stops.
   */
  async onApplicationBootstrap(): Promise<void> {
    this.schedules = this.registry.resolve();
    // Closed before start-up finished (an HTTP app's close() does not wait for it): no round on a closing database.
    if (this.schedules.length === 0 || this.stopped) return;
    this.logger.log(
      `Cron schedules: ${this.schedules.map((s) => `${s.name} (${s.type}, "${s.cron}" ${s.expression.timezone})`).join(', ')}`,
    );
    await this.tick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.round;
  }

  /** One round now; concurrent calls share it. */
  tick(): Promise<void> {
    this.round ??= this.runRound().finally(() => (this.round = null));
    return this.round;
  }

  private async runRound(): Promise<void> {
    let next: number;
    try {
      next = await this.enqueueDue();
      this.failures = 0;
    } catch (err) {
      this.failures++;
      const pause = retryPause(this.failures);
      this.logger.warn(
        new LogRecord('Cron round failed; trying again', { retryInMs: pause, failures: this.failures, error: (err as Error).message }),
      );
      next = this.clock.now() + pause;
    }
    this.arm(next);
  }

  /** Arms the timer for `at`, a time on the database clock (epoch ms). */
  private arm(at: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const delay = Math.min(MAX_SLEEP_MS, Math.max(0, at - this.clock.now()));
    this.timer = setTimeout(() => void this.tick(), delay);
  }

  /** Enqueues every due tick in one transaction; returns when the next tick is due (database clock, epoch ms). */
  private async enqueueDue(): Promise<number> {
    const t = this.db.tables;
    if (!this.registered) {
      await run(
        this.db.pool,
        scheduleInsertMissing(
          t,
          this.schedules.map((s) => ({ name: s.name, cron: scheduleDefinition(s.expression) })),
        ),
      );
      this.registered = true;
    }
    const { now, created } = await this.db.transaction(async (tx) => {
      const locked = (
        await run<{ name: string; last_tick: Date; paused: boolean; cron: string }>(
          tx,
          scheduleLockMany(
            t,
            this.schedules.map((s) => s.name),
          ),
        )
      ).rows;
      // A progress row deleted by hand is recreated (from now) on the next round.
      if (locked.length < this.schedules.length) this.registered = false;
      const now = await this.measureClock(tx);
      const since = this.since ?? now;
      const rowsByName = new Map(locked.map((r) => [r.name, r]));
      const rows: NewJobRow[] = [];
      const advances: Array<{ name: string; tick: Date; cron: string }> = [];
      const changes: Array<{ name: string; since: Date; definition: string }> = [];
      for (const s of this.schedules) {
        const row = rowsByName.get(s.name);
        if (!row) continue;
        const definition = scheduleDefinition(s.expression);
        const stored = { lastTick: row.last_tick, paused: row.paused };
        if (row.cron !== definition) {
          changes.push({ name: s.name, since, definition });
          if (since > stored.lastTick) stored.lastTick = since;
        }
        const owed = this.isolated(s, now, () => this.owedRows(s, stored, now));
        if (!owed || owed.rows.length === 0) continue;
        rows.push(...owed.rows);
        advances.push({ name: s.name, tick: owed.lastTick, cron: definition });
      }
      if (changes.length > 0) await run(tx, scheduleRedefineMany(t, changes));
      if (rows.length === 0) return { now, created: [] as JobRow[] };
      const { rows: inserted } = await insertRows(tx, t, rows);
      await this.live.announceIn(
        tx,
        [...inserted.values()].map((r) => ({ id: r.id as string, status: r.status as string })),
      );
      await run(tx, scheduleAdvanceMany(t, advances));
      return { now, created: [...inserted.values()] };
    });
    this.since ??= now;
    if (created.length > 0) {
      const jobs = created.map((r) => mapJobRow(r));
      this.events.emit('submitted', jobs);
      for (const job of jobs)
        this.logger.debug(new LogRecord('Enqueued a scheduled job', { jobId: job.id, type: job.type, key: job.idempotencyKey }));
    }
    return Math.min(...this.schedules.map((s) => this.nextWake(s, now)));
  }

  /**
   * When a schedule next needs a round: its next tick, or the end of its pause while it fails. The last part of a
   * schedule's round: a failing schedule whose pause was over and which got through both parts no longer fails (one
   * that failed again has a pause that ends after `now`).
   */
  private nextWake(s: ResolvedSchedule, now: Date): number {
    const tick = this.isolated(s, now, () => s.expression.next(now).getTime());
    const failing = this.failingSchedules.get(s.name);
    if (failing && now.getTime() < failing.retryAt) return failing.retryAt;
    this.failingSchedules.delete(s.name);
    return tick as number;
  }

  /** The jobs a schedule owes for its due ticks, and the newest of those ticks. */
  private owedRows(s: ResolvedSchedule, stored: ScheduleProgress, now: Date): { rows: NewJobRow[]; lastTick: Date } {
    const { ticks, skipped } = dueTicks(s.expression, s.catchUp, stored, now);
    if (skipped) {
      const fields = { schedule: s.name, lastTick: stored.lastTick.toISOString(), enqueued: ticks.length, catchUp: s.catchUp };
      this.logger.warn(new LogRecord('Schedule missed more ticks than it catches up on; skipped the older ones', fields));
    }
    const rows = ticks.map((tick) =>
      this.validator.toRow({ type: s.type, payload: s.payload, runAt: tick.toISOString(), idempotencyKey: cronJobKey(s.name, tick) }),
    );
    return { rows, lastTick: ticks[ticks.length - 1] };
  }

  /**
   * Runs one schedule's part of a round. A schedule that fails (its expression throws, say) is left out of rounds
   * until its pause is over, with a warning — its progress stays where it was, so its ticks are owed still — and the
   * other schedules go on.
   */
  private isolated<T>(s: ResolvedSchedule, now: Date, part: () => T): T | null {
    const failing = this.failingSchedules.get(s.name);
    if (failing && now.getTime() < failing.retryAt) return null;
    try {
      return part();
    } catch (err) {
      const failures = (failing?.failures ?? 0) + 1;
      const retryInMs = retryPause(failures);
      this.failingSchedules.set(s.name, { failures, retryAt: now.getTime() + retryInMs });
      this.logger.warn(
        new LogRecord('Schedule failed; the other schedules go on', {
          schedule: s.name,
          failures,
          retryInMs,
          error: (err as Error).message,
        }),
      );
      return null;
    }
  }

  /**
   * Reads the database clock and gives the reading to DatabaseClock (this host's estimate of it). Returns the
   * transaction's start: ticks due by then are enqueued, so each of those jobs is due at once (PENDING); a tick that
   * fell due while the round waited for the locks is left to the next round, which the timer then runs at once.
   */
  private async measureClock(tx: SqlRunner): Promise<Date> {
    const sentAt = Date.now();
    const clock = (await run<{ tx_now: Date; now_ms: number }>(tx, databaseClock())).rows[0];
    this.clock.read(clock.now_ms, sentAt, Date.now());
    return clock.tx_now;
  }
}
