import type { Schedule } from '@conveyor/client';
import { randomBytes } from 'node:crypto';
import { IsString } from 'class-validator';
import request from 'supertest';
import { JobHandler, JobHandlerHost } from '@conveyor/core';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const PRODUCER = `prod-${randomBytes(16).toString('hex')}`;
const WORKER = `work-${randomBytes(16).toString('hex')}`;
const ADMIN = `adm-${randomBytes(16).toString('hex')}`;
const API_KEYS = [
  { role: 'producer' as const, key: PRODUCER },
  { role: 'worker' as const, key: WORKER },
  { role: 'admin' as const, key: ADMIN },
];

class DigestPayload {
  @IsString()
  digest: string;
}

/** The handler's own schedule: every second, the finest granularity a cron expression has (6 fields). */
@JobHandler('DIGEST', {
  queue: 'digests',
  payload: DigestPayload,
  schedules: [{ name: 'every-second', cron: '* * * * * *', payload: { digest: 'live' } }],
})
class DigestHandler extends JobHandlerHost<DigestPayload> {
  handle(): void {}
}

/** Ticks every second too: a clock that shows rounds went on while the other schedule was paused. */
const METRONOME = { name: 'metronome', type: 'DIGEST', cron: '* * * * * *', payload: { digest: 'metronome' } };
/** Ticks once a year: its progress stays put while the test triggers it. */
const YEARLY = { name: 'yearly', type: 'DIGEST', cron: '0 0 1 1 *', timezone: 'Europe/Berlin', payload: { digest: 'yearly' } };

/**
 * `GET /schedules`, `GET /schedules/:name`, and pause, resume and trigger, on two app instances sharing one schema
 * (API-only, so the enqueued jobs stay PENDING and can be counted): what the API answers is checked against the
 * schedules' rows and the jobs they enqueued.
 */
describe('schedules API: list, pause, resume, trigger', () => {
  let schema: TestSchema;
  let a: TestApp;
  let b: TestApp;

  const start = (i: number) =>
    createTestApp({
      schema: schema.schema,
      providers: [DigestHandler],
      appName: `schedules-${i}`,
      poolSize: 4,
      engine: { runWorkers: false, schedules: [METRONOME, YEARLY] },
      httpOptions: { apiKeys: API_KEYS },
    });
  /** A request with `key` (the admin's by default; null for none). */
  const call = (method: 'get' | 'post', path: string, key: string | null = ADMIN, app = a) => {
    const req = request(app.app.getHttpServer())[method](path);
    return key === null ? req : req.set('Authorization', `Bearer ${key}`);
  };
  const schedule = async (name: string, app = a) => (await call('get', `/schedules/${name}`, PRODUCER, app).expect(200)).body as Schedule;
  /** The ticks a schedule enqueued (not its triggered jobs), oldest first, as run_at epoch ms. */
  const ticksOf = async (name: string): Promise<number[]> =>
    (
      await a.sql.query<{ run_at: Date }>(
        `SELECT run_at FROM ${a.jobsTable} WHERE idempotency_key LIKE $1 AND idempotency_key NOT LIKE $2 ORDER BY run_at`,
        [`cron:${name}:%`, `cron:${name}:trigger:%`],
      )
    ).rows.map((r) => r.run_at.getTime());
  const stored = async (name: string) =>
    (
      await a.sql.query<{ last_tick: Date; enqueued_tick: Date | null; paused: boolean; paused_at: Date | null }>(
        `SELECT last_tick, enqueued_tick, paused, paused_at FROM ${schema.schema}.conveyor_schedules WHERE name = $1`,
        [name],
      )
    ).rows[0];
  /** Waits until `name` enqueued `more` ticks beyond `count`. */
  const moreTicks = (name: string, count: number, more: number) =>
    waitFor(async () => (await ticksOf(name)).length >= count + more, { timeoutMs: 15_000, message: `${more} more ticks of ${name}` });

  beforeAll(async () => {
    schema = await createTestSchema('schedule_control');
    [a, b] = [await start(0), await start(1)];
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  it('lists every schedule by name with its definition, last and next tick, as stored', async () => {
    await moreTicks('every-second', 0, 1);
    const { schedules } = (await call('get', '/schedules', PRODUCER).expect(200)).body as { schedules: Schedule[] };
    expect(schedules.map((s) => s.name)).toEqual(['every-second', 'metronome', 'yearly']);
    expect(schedules[0]).toMatchObject({
      cron: '* * * * * *',
      timezone: 'UTC',
      type: 'DIGEST',
      queue: 'digests',
      catchUp: 1,
      paused: false,
      pausedAt: null,
    });
    expect(schedules[2]).toMatchObject({ cron: '0 0 1 1 *', timezone: 'Europe/Berlin', lastTick: null, paused: false });
    // Midnight of 1 January in Berlin is 23:00 UTC the day before.
    expect(schedules[2].nextTick).toMatch(/^\d{4}-12-31T23:00:00\.000Z$/);

    // Read in this order, so that the rows are at least as new as the answer (the schedule ticks meanwhile).
    const one = await schedule('every-second');
    const row = await stored('every-second');
    const ticks = await ticksOf('every-second');
    // The last tick is one enqueued; the next one follows it by the expression.
    expect(ticks).toContain(Date.parse(one.lastTick!));
    expect(row.enqueued_tick!.getTime()).toBeGreaterThanOrEqual(Date.parse(one.lastTick!));
    expect(Date.parse(one.nextTick!)).toBe(Date.parse(one.lastTick!) + 1000);
  });

  it('answers 404 for an unknown name and 400 for a malformed one, on every route', async () => {
    for (const [method, path] of [
      ['get', '/schedules/nope'],
      ['post', '/schedules/nope/pause'],
      ['post', '/schedules/nope/resume'],
      ['post', '/schedules/nope/trigger'],
    ] as const) {
      const res = await call(method, path).expect(404);
      expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'No schedule named "nope".' });
    }
    const bad = await call('get', '/schedules/bad%20name').expect(400);
    expect(bad.body.details).toEqual([{ field: 'name', problems: [expect.any(String)] }]);
    expect(await stored('nope')).toBeUndefined();
  });

  it('pausing on one instance stops the ticks on both; resuming restarts them from the next tick, without back-fill', async () => {
    const paused = (await call('post', '/schedules/every-second/pause').expect(200)).body as Schedule;
    expect(paused).toMatchObject({ name: 'every-second', paused: true, nextTick: null });
    const row = await stored('every-second');
    expect(row).toMatchObject({ paused: true });
    expect(Date.parse(paused.pausedAt!)).toBe(row.paused_at!.getTime());
    // The other instance reads the same state.
    expect(await schedule('every-second', b)).toMatchObject({ paused: true, nextTick: null, pausedAt: paused.pausedAt });
    // Pausing twice is no error and keeps the first pause's time.
    expect((await call('post', '/schedules/every-second/pause').expect(200)).body).toMatchObject({
      paused: true,
      pausedAt: paused.pausedAt,
    });

    const pausedAt = row.paused_at!.getTime();
    const before = (await ticksOf('every-second')).length;
    const metronome = (await ticksOf('metronome')).length;
    await moreTicks('metronome', metronome, 3);
    expect((await ticksOf('every-second')).length).toBe(before);

    const resumed = (await call('post', '/schedules/every-second/resume', ADMIN, b).expect(200)).body as Schedule;
    const afterResume = await stored('every-second');
    expect(afterResume).toMatchObject({ paused: false, paused_at: null });
    expect(resumed).toMatchObject({ paused: false, pausedAt: null });
    const resumedAt = afterResume.last_tick.getTime();
    expect(resumedAt).toBeGreaterThan(pausedAt);
    expect(Date.parse(resumed.nextTick!)).toBe(Math.floor(resumedAt / 1000) * 1000 + 1000);

    await moreTicks('every-second', before, 2);
    const ticks = await ticksOf('every-second');
    // The first tick after the pause is the first after the resume: none of those that fell while it was paused,
    // though the catch-up rule would enqueue one missed tick after a downtime.
    expect(ticks[before]).toBe(Date.parse(resumed.nextTick!));
    expect(ticks.slice(before).every((t) => t > resumedAt)).toBe(true);
    // One job per tick, still.
    expect(new Set(ticks).size).toBe(ticks.length);
  });

  it('resuming a schedule that is not paused changes nothing', async () => {
    const before = await stored('yearly');
    expect((await call('post', '/schedules/yearly/resume').expect(200)).body).toMatchObject({ paused: false });
    expect(await stored('yearly')).toEqual(before);
  });

  it('trigger enqueues one job now, paused or not, and leaves the regular ticks alone', async () => {
    const before = await schedule('yearly');
    const beforeRow = await stored('yearly');
    const res = await call('post', '/schedules/yearly/trigger').expect(201);
    const job = res.body as { id: string; type: string; queue: string; payload: unknown; status: string; idempotencyKey: string };
    expect(job).toMatchObject({ type: 'DIGEST', queue: 'digests', payload: { digest: 'yearly' }, status: 'PENDING' });
    expect(job.idempotencyKey).toMatch(/^cron:yearly:trigger:/);
    const { rows } = await a.sql.query<{ status: string; due: boolean }>(
      `SELECT status, run_at <= now() AS due FROM ${a.jobsTable} WHERE idempotency_key LIKE 'cron:yearly:%'`,
    );
    expect(rows).toEqual([{ status: 'PENDING', due: true }]);
    expect(await stored('yearly')).toEqual(beforeRow);
    expect(await schedule('yearly')).toEqual(before);

    // Paused, it still triggers (an operator's explicit act), and stays paused.
    await call('post', '/schedules/yearly/pause').expect(200);
    await call('post', '/schedules/yearly/trigger', ADMIN, b).expect(201);
    expect((await a.sql.query(`SELECT 1 FROM ${a.jobsTable} WHERE idempotency_key LIKE 'cron:yearly:%'`)).rowCount).toBe(2);
    expect(await stored('yearly')).toMatchObject({ paused: true, last_tick: beforeRow.last_tick, enqueued_tick: null });
    await call('post', '/schedules/yearly/resume').expect(200);
  });

  it('lets producer and worker keys read, and only admin keys act; no key is a 401', async () => {
    for (const key of [PRODUCER, WORKER, ADMIN]) {
      await call('get', '/schedules', key).expect(200);
      await call('get', '/schedules/yearly', key).expect(200);
    }
    const jobsBefore = (await a.sql.query(`SELECT 1 FROM ${a.jobsTable} WHERE idempotency_key LIKE 'cron:yearly:%'`)).rowCount;
    for (const action of ['pause', 'resume', 'trigger']) {
      for (const key of [PRODUCER, WORKER]) {
        const res = await call('post', `/schedules/yearly/${action}`, key).expect(403);
        expect(res.body).toMatchObject({ statusCode: 403, error: 'Forbidden' });
      }
      await call('post', `/schedules/yearly/${action}`, null).expect(401);
    }
    await call('get', '/schedules', null).expect(401);
    expect(await stored('yearly')).toMatchObject({ paused: false });
    expect((await a.sql.query(`SELECT 1 FROM ${a.jobsTable} WHERE idempotency_key LIKE 'cron:yearly:%'`)).rowCount).toBe(jobsBefore);
  });
});
