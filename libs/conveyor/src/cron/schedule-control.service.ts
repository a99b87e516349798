import { Injectable } from '@nestjs/common';
import { ScheduleNotFoundError } from '../errors/schedule-not-found.error';
import { Job } from '../job/job';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { run, scheduleList, ScheduleRow, scheduleSetPaused } from '../storage/statements';
import { JobsService } from '../submission/jobs.service';
import { JobRequestValidator } from '../submission/job-request.validator';
import { ResolvedSchedule, ScheduleRegistry } from './schedule-registry.service';
import { nextTick, scheduleDefinition } from './schedule-ticks';

/** One schedule as the API shows it: its definition on this instance and its state in the database. */
export interface ScheduleState {
  name: string;
  cron: string;
  timezone: string;
  /** Job type each tick enqueues, and the queue those jobs go to. */
  type: string;
  queue: string;
  catchUp: number;
  paused: boolean;
  pausedAt: Date | null;
  /** The newest tick a job was enqueued for; null before the first. */
  lastTick: Date | null;
  /** The next tick to be enqueued; null while paused. */
  nextTick: Date | null;
}

/** Idempotency key of a job enqueued by hand for a schedule (compare cronJobKey for a tick's job). */
export function cronTriggerKey(name: string, at: Date): string {
  return `cron:${name}:trigger:${at.toISOString()}`;
}

/**
 * Reads and steers this instance's cron schedules: their state, pause and resume, and a job enqueued now. The
 * state lives in the schedules' rows, which every instance's timekeeper reads under its row lock, so a pause holds
 * on every instance from its next round; nothing here talks to the timekeeper. Only schedules this instance
 * declares are known (instances of one deployment declare the same ones); any other name is ScheduleNotFoundError.
 */
@Injectable()
export class ScheduleControl {
  private resolved: Array<ResolvedSchedule & { queue: string }> | null = null;

  constructor(
    private readonly registry: ScheduleRegistry,
    private readonly validator: JobRequestValidator,
    private readonly jobs: JobsService,
    private readonly db: ConveyorDatabase,
  ) {}

  /** Every schedule, by name. */
  async list(): Promise<ScheduleState[]> {
    const schedules = this.schedules();
    const rows = await this.rows(schedules.map((s) => s.name));
    return schedules.map((s) => this.state(s, rows.get(s.name))).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** One schedule; throws ScheduleNotFoundError. */
  async get(name: string): Promise<ScheduleState> {
    const s = this.find(name);
    return this.state(s, (await this.rows([name])).get(name));
  }

  /** Stops enqueueing the schedule's ticks, on every instance. Pausing a paused schedule is no error. */
  pause(name: string): Promise<ScheduleState> {
    return this.setPaused(name, true);
  }

  /** Enqueues its ticks again, from the first one after now: none of those that fell while it was paused. */
  resume(name: string): Promise<ScheduleState> {
    return this.setPaused(name, false);
  }

  /**
   * Enqueues one job of the schedule's type and payload now, paused or not, leaving the schedule's progress alone:
   * its next regular tick is enqueued as it would have been. Two triggers in the same millisecond are one job.
   */
  async trigger(name: string): Promise<Job> {
    const s = this.find(name);
    return this.jobs.enqueue(s.type, s.payload, { idempotencyKey: cronTriggerKey(s.name, new Date()) });
  }

  private async setPaused(name: string, paused: boolean): Promise<ScheduleState> {
    const s = this.find(name);
    const { rows } = await run<ScheduleRow>(
      this.db.pool,
      scheduleSetPaused(this.db.tables, s.name, scheduleDefinition(s.expression), paused),
    );
    return this.state(s, rows[0]);
  }

  private find(name: string): ResolvedSchedule & { queue: string } {
    const s = this.schedules().find((x) => x.name === name);
    if (!s) throw new ScheduleNotFoundError(name);
    return s;
  }

  /**
   * The schedules, resolved once (they were checked at start-up, so this cannot fail), each with the queue its jobs
   * go to as the validator decides it for a submission of its type.
   */
  private schedules(): Array<ResolvedSchedule & { queue: string }> {
    this.resolved ??= this.registry
      .resolve()
      .map((s) => ({ ...s, queue: this.validator.toRow({ type: s.type, payload: s.payload }).queue }));
    return this.resolved;
  }

  private async rows(names: string[]): Promise<Map<string, ScheduleRow>> {
    if (names.length === 0) return new Map();
    const { rows } = await run<ScheduleRow>(this.db.pool, scheduleList(this.db.tables, names));
    return new Map(rows.map((r) => [r.name, r]));
  }

  /** A schedule the timekeeper has not registered yet starts from now, unpaused (scheduleInsertMissing). */
  private state(s: ResolvedSchedule & { queue: string }, row: ScheduleRow | undefined): ScheduleState {
    const progress = row ? { lastTick: row.last_tick, paused: row.paused } : { lastTick: new Date(), paused: false };
    return {
      name: s.name,
      cron: s.cron,
      timezone: s.expression.timezone,
      type: s.type,
      queue: s.queue,
      catchUp: s.catchUp,
      paused: progress.paused,
      pausedAt: row?.paused_at ?? null,
      lastTick: row?.enqueued_tick ?? null,
      nextTick: nextTick(s.expression, progress),
    };
  }
}
