import { IsString } from 'class-validator';
import { Pool } from 'pg';
import { CronScheduleError, JobHandler, JobHandlerHost } from '@conveyor/core';
import { CronExpression } from '@conveyor/core/config/cron-expression';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

class ReportPayload {
  @IsString()
  report: string;
}

/** Declares its own per-second schedule, catching up on up to 10 missed ticks. */
@JobHandler('REPORT', {
  payload: ReportPayload,
  schedules: [{ name: 'every-second', cron: '* * * * * *', payload: { report: 'live' }, catchUp: 10 }],
})
class ReportHandler extends JobHandlerHost<ReportPayload> {
  handle(): string {
    return 'done';
  }
}

@JobHandler('BROKEN_CRON', { schedules: [{ cron: '* * * *' }] })
class BrokenCronHandler extends JobHandlerHost {
  handle(): void {}
}

/** A schedule from the engine options, with the default catch-up (only the newest missed tick). */
const LATEST_ONLY = { name: 'latest-only', type: 'REPORT', cron: '* * * * * *', payload: { report: 'config' } };

interface TickRow {
  key: string;
  tick: number;
  created: number;
  status: string;
}

/**
 * Cron schedules against real PostgreSQL with several app instances on one schema: every tick becomes exactly
 * one job, close to its tick; a restart after a gap enqueues the missed ticks by the catch-up rule and no tick
 * twice; a bad schedule stops start-up with a CronScheduleError.
 */
describe('cron schedules', () => {
  let schema: TestSchema;
  let sql: Pool;
  let apps: TestApp[] = [];

  const start = (count: number) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        createTestApp({
          schema: schema.schema,
          http: false,
          providers: [ReportHandler],
          appName: `cron-${i}`,
          poolSize: 4,
          engine: { runWorkers: false, schedules: [LATEST_ONLY] },
        }),
      ),
    );
  const stopAll = async () => {
    await Promise.all(apps.map((a) => a.close()));
    apps = [];
  };
  /** The jobs one schedule enqueued, by tick, from its idempotency keys. */
  const ticksOf = async (name: string): Promise<TickRow[]> =>
    (
      await sql.query<{ key: string; run_at: Date; created_at: Date; status: string }>(
        `SELECT idempotency_key AS key, run_at, created_at, status FROM ${schema.schema}.conveyor_jobs
         WHERE idempotency_key LIKE $1 ORDER BY run_at`,
        [`cron:${name}:%`],
      )
    ).rows.map((r) => ({ key: r.key, tick: r.run_at.getTime(), created: r.created_at.getTime(), status: r.status }));
  const dbNow = async () => (await sql.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0].now.getTime();
  const expectOneJobPerTick = (rows: TickRow[], name: string) => {
    for (const r of rows) {
      expect(r.key).toBe(`cron:${name}:${new Date(r.tick).toISOString()}`);
      expect(r.tick % 1000).toBe(0);
    }
    expect(new Set(rows.map((r) => r.tick)).size).toBe(rows.length);
  };
  const gapsOf = (rows: TickRow[]) => rows.slice(1).map((r, i) => r.tick - rows[i].tick);

  beforeAll(async () => {
    schema = await createTestSchema('cron');
    sql = new Pool({ connectionString: schema.url, max: 2 });
  });

  afterAll(async () => {
    await stopAll();
    await sql?.end();
    await schema?.drop();
  });

  it('three instances: each tick of each schedule is one job, enqueued close to its tick, none before the start', async () => {
    const startedAt = await dbNow();
    apps = await start(3);
    await waitFor(async () => (await ticksOf('every-second')).length >= 4 && (await ticksOf('latest-only')).length >= 4, {
      message: 'four ticks of both schedules',
    });

    for (const name of ['every-second', 'latest-only']) {
      const rows = await ticksOf(name);
      expectOneJobPerTick(rows, name);
      // A new schedule starts from now: no backlog from before the first start.
      expect(rows[0].tick).toBeGreaterThan(startedAt - 1000);
      // No tick skipped while instances were running.
      expect(gapsOf(rows).every((g) => g === 1000)).toBe(true);
      // Enqueued by the timer at the tick, not a poll or maintenance interval later (generous for a busy CI machine).
      for (const r of rows) expect(r.created - r.tick).toBeLessThan(900);
      expect(rows.every((r) => r.status === 'PENDING')).toBe(true);
    }
    const progress = await sql.query<{ name: string; last_tick: Date }>(
      `SELECT name, last_tick FROM ${schema.schema}.conveyor_schedules ORDER BY name`,
    );
    expect(progress.rows.map((r) => r.name)).toEqual(['every-second', 'latest-only']);
  });

  it('after all instances stop for a few ticks, a restart enqueues the missed ticks by the catch-up rule, no tick twice', async () => {
    await stopAll();
    const lastBefore = {
      every: (await ticksOf('every-second')).at(-1)!.tick,
      latest: (await ticksOf('latest-only')).at(-1)!.tick,
    };
    // Down for at least three full ticks (awaited on the database clock, which the schedules follow).
    await waitFor(async () => (await dbNow()) > Math.max(lastBefore.every, lastBefore.latest) + 3_500, { message: 'three ticks to pass' });

    apps = await start(2);
    // The first round ran during start-up: the catch-up is in the table already.
    const every = await ticksOf('every-second');
    const latest = await ticksOf('latest-only');
    expectOneJobPerTick(every, 'every-second');
    expectOneJobPerTick(latest, 'latest-only');

    // catchUp 10: every missed tick was enqueued; not one is missing or doubled.
    const missedEvery = every.filter((r) => r.tick > lastBefore.every);
    expect(missedEvery.length).toBeGreaterThanOrEqual(3);
    expect(gapsOf(every).every((g) => g === 1000)).toBe(true);

    // Default catchUp 1: of the missed ticks only the newest was enqueued (at start-up); the older ones were
    // skipped. So the only gap is the one across the downtime, and the restarted instances carry on tick by tick.
    const caughtUp = latest.find((r) => r.tick > lastBefore.latest)!;
    expect(caughtUp.tick - lastBefore.latest).toBeGreaterThanOrEqual(3_000);
    await waitFor(async () => (await ticksOf('latest-only')).filter((r) => r.tick > caughtUp.tick).length >= 2, {
      message: 'two more ticks',
    });
    const gaps = gapsOf(await ticksOf('latest-only'));
    expect(gaps.filter((g) => g !== 1000)).toEqual([caughtUp.tick - lastBefore.latest]);
    expectOneJobPerTick(await ticksOf('latest-only'), 'latest-only');
    expectOneJobPerTick(await ticksOf('every-second'), 'every-second');
    expect(gapsOf(await ticksOf('every-second')).every((g) => g === 1000)).toBe(true);
  });

  it('a handler schedule with bad cron syntax stops start-up with a CronScheduleError naming it', async () => {
    const failed = createTestApp({ schema: schema.schema, http: false, providers: [BrokenCronHandler], engine: { runWorkers: false } });
    await expect(failed).rejects.toThrow(CronScheduleError);
    await expect(failed).rejects.toThrow(/@JobHandler\('BROKEN_CRON'\)\.schedules\[0\]\.cron.*4 fields/);
  });

  it('a schedule that fails leaves the others running, and enqueues the ticks it owes once it works again', async () => {
    await stopAll();
    // The failure stands in for cron-parser throwing on one expression: one schedule, in one time zone, fails.
    const due = CronExpression.prototype.due;
    const failing = jest.spyOn(CronExpression.prototype, 'due').mockImplementation(function (this: CronExpression, ...args) {
      if (this.timezone === 'Asia/Tokyo') throw new Error('injected failure');
      return due.apply(this, args);
    });
    try {
      apps = [
        await createTestApp({
          schema: schema.schema,
          http: false,
          providers: [ReportHandler],
          engine: {
            runWorkers: false,
            schedules: [
              { ...LATEST_ONLY, name: 'steady' },
              { ...LATEST_ONLY, name: 'faulty', timezone: 'Asia/Tokyo', catchUp: 100 },
            ],
          },
        }),
      ];
      await waitFor(async () => (await ticksOf('steady')).length >= 3, { message: 'three ticks of the schedule that works' });
      expect(await ticksOf('faulty')).toEqual([]);
      const steady = await ticksOf('steady');
      expect(gapsOf(steady).every((g) => g === 1000)).toBe(true);
      const faultyFrom = (
        await sql.query<{ last_tick: Date }>(`SELECT last_tick FROM ${schema.schema}.conveyor_schedules WHERE name = 'faulty'`)
      ).rows[0].last_tick.getTime();
      failing.mockRestore();

      // Its progress stayed where it was: once it works, it enqueues every tick since then (catchUp 100), one job each.
      await waitFor(async () => (await ticksOf('faulty')).some((r) => r.tick > steady.at(-1)!.tick), {
        message: 'the faulty schedule to catch up',
      });
      const faulty = await ticksOf('faulty');
      expectOneJobPerTick(faulty, 'faulty');
      expect(faulty[0].tick).toBe(Math.floor(faultyFrom / 1000) * 1000 + 1000);
      expect(gapsOf(faulty).every((g) => g === 1000)).toBe(true);
    } finally {
      failing.mockRestore();
    }
  });

  it.each([
    // Per second: its ticks go on after the deploy.
    ['expression', () => ({ old: { cron: '0 0 1 1 *' }, changed: { cron: '* * * * * *' }, ticksAfter: true })],
    [
      'time zone',
      () => {
        // A tick 1.5 s from now in UTC+1 (no daylight saving there): the same text read in UTC ticks an hour later.
        const wall = new Date(Date.now() + 1_500 + 3_600_000);
        const text = `${wall.getUTCSeconds()} ${wall.getUTCMinutes()} ${wall.getUTCHours()} * * *`;
        return { old: { cron: text }, changed: { cron: text, timezone: 'Etc/GMT-1' }, ticksAfter: false };
      },
    ],
  ])('a new %s across a rolling deploy starts from the deploy: none of its earlier ticks is enqueued', async (_case, definitions) => {
    await stopAll();
    const { old, changed, ticksAfter } = definitions();
    const name = `new-${_case.replace(' ', '-')}`;
    const startApp = (def: { cron: string; timezone?: string }) =>
      createTestApp({
        schema: schema.schema,
        http: false,
        providers: [ReportHandler],
        engine: { runWorkers: false, schedules: [{ ...LATEST_ONLY, name, catchUp: 10, ...def }] },
      });
    const registeredAt = await dbNow();
    apps = [await startApp(old)];
    // The old definition runs on while ticks of the new one fall: the new one did not exist yet, so they are not owed.
    await waitFor(async () => (await dbNow()) > registeredAt + 2_500, { message: 'ticks of the new definition to fall' });
    const deployedAt = await dbNow();
    apps.push(await startApp(changed));
    await apps.shift()!.close();
    await waitFor(async () => (await dbNow()) > deployedAt + 1_500, { message: 'a tick after the deploy' });
    if (ticksAfter) await waitFor(async () => (await ticksOf(name)).length >= 1, { message: 'a tick of the new definition' });
    const ticks = await ticksOf(name);
    expectOneJobPerTick(ticks, name);
    expect(ticks.filter((r) => r.tick <= deployedAt)).toEqual([]);
    if (ticksAfter) expect(gapsOf(ticks).every((g) => g === 1000)).toBe(true);
  });

  it('old and new definitions running together each enqueue their own ticks, once each, none lost', async () => {
    await stopAll();
    const startApp = (cron: string) =>
      createTestApp({
        schema: schema.schema,
        http: false,
        providers: [ReportHandler],
        engine: { runWorkers: false, schedules: [{ ...LATEST_ONLY, name: 'even-to-odd', cron }] },
      });
    apps = [await startApp('*/2 * * * * *')];
    const deployedAt = await dbNow();
    apps.push(await startApp('1-59/2 * * * * *'));
    // The two find each other's definition in the row in turn, round after round.
    await waitFor(async () => (await ticksOf('even-to-odd')).filter((r) => r.tick > deployedAt).length >= 6, {
      message: 'six ticks of both definitions',
    });
    await apps.shift()!.close();
    const ticks = (await ticksOf('even-to-odd')).filter((r) => r.tick > deployedAt + 1_000);
    expectOneJobPerTick(ticks, 'even-to-odd');
    expect(gapsOf(ticks).every((g) => g === 1000)).toBe(true);
  });

  it.each([
    ['a payload the handler rejects', { ...LATEST_ONLY, name: 'bad-payload', payload: { report: 5 } }, /schedules\[0\]\.payload\.report/],
    ['an unknown job type', { ...LATEST_ONLY, name: 'no-handler', type: 'NOPE' }, /schedules\[0\]\.type.*NOPE/],
    ['a name a handler schedule has', { ...LATEST_ONLY, name: 'every-second' }, /"every-second" is also the name of/],
  ])('an engine-option schedule with %s stops start-up with a CronScheduleError', async (_case, schedule, message) => {
    const failed = createTestApp({
      schema: schema.schema,
      http: false,
      providers: [ReportHandler],
      engine: { runWorkers: false, schedules: [schedule] },
    });
    await expect(failed).rejects.toThrow(CronScheduleError);
    await expect(failed).rejects.toThrow(message);
  });
});
