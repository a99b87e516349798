import { Pool } from 'pg';
import { DatabaseClock } from '@conveyor/core/storage/connections/database-clock.service';
import { SqlRunner } from '@conveyor/core/storage/connections/sql-runner.interface';
import { WorkerConnection } from '@conveyor/core/storage/connections/worker-connection.service';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/** Session defaults a role or database may set (`ALTER DATABASE … SET`), given here through the URL's `options`. */
const SERVER_SETTINGS = [
  '-c DateStyle=SQL,DMY',
  '-c TimeZone=Asia/Kathmandu',
  '-c extra_float_digits=-15',
  '-c default_transaction_isolation=serializable',
];

const TIMES = ['createdAt', 'runAt', 'startedAt', 'finishedAt'] as const;

/**
 * A database whose sessions default to another DateStyle and fewer float digits. Under `SQL, DMY` PostgreSQL sends a
 * timestamptz as `28/11/2026 08:36:46.318 +0545`, which pg reads as null; at extra_float_digits -15 the database clock
 * in ms arrives as `2e+12`. The engine sets its own sessions' formats, so jobs run and their times read right; its
 * claims, outcome writes and transactions, written for READ COMMITTED, run at that level.
 */
describe('a database with its own DateStyle, time zone, float digits and isolation', () => {
  let schema: TestSchema;
  let recorder: Pool;
  let app: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('sessionformats');
    const url = new URL(schema.url);
    url.searchParams.set('options', [url.searchParams.get('options'), ...SERVER_SETTINGS].join(' '));
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    const providers = [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler];
    app = await createTestApp({ schema: schema.schema, url: url.toString(), providers, listen: true });
  });

  afterAll(async () => {
    await app?.close();
    await recorder?.end();
    await schema?.drop();
  });

  it('the settings are in force on the sessions of that URL', async () => {
    const { rows } = await app.sql.query<{ style: string; digits: string }>(
      `SELECT current_setting('DateStyle') AS style, current_setting('extra_float_digits') AS digits`,
    );
    expect(rows[0]).toEqual({ style: 'SQL, DMY', digits: '-15' });
  });

  it('runs submitted and delayed jobs, and answers their times as stored', async () => {
    const ids: string[] = [];
    for (const delayMs of [0, 300]) {
      const res = await fetch(`${app.baseUrl}/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'TEST_RECORD', payload: {}, delayMs }),
      });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { id: string }).id);
    }
    const stored = () =>
      recorder.query<{ id: string; status: string } & Record<(typeof TIMES)[number], string>>(
        `SELECT id, status, ${TIMES.map((t) => `floor(extract(epoch FROM ${snake(t)}) * 1000)::bigint::text AS "${t}"`).join(', ')}
         FROM ${app.jobsTable} WHERE id = ANY($1) ORDER BY created_at`,
        [ids],
      );
    await waitFor(async () => (await stored()).rows.every((r) => r.status === 'COMPLETED'), { message: 'both jobs to complete' });
    for (const row of (await stored()).rows) {
      const job = (await (await fetch(`${app.baseUrl}/jobs/${row.id}`)).json()) as Record<string, string>;
      for (const t of TIMES) expect([t, Date.parse(job[t])]).toEqual([t, Number(row[t])]);
    }
  });

  it("claims, writes outcomes and runs its transactions at READ COMMITTED; pooled statements keep the database's isolation", async () => {
    const isolation = `SELECT current_setting('transaction_isolation') AS level`;
    const level = async (runner: SqlRunner) => (await runner.query<{ level: string }>(isolation)).rows[0].level;
    expect(await level(app.app.get(WorkerConnection).runner)).toBe('read committed');
    expect(await app.db.transaction((tx) => level(tx))).toBe('read committed');
    expect(await level(app.db.pool)).toBe('serializable');
  });

  it('reads the database clock to the millisecond', async () => {
    const { rows } = await recorder.query<{ ms: string }>(`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS ms`);
    expect(Math.abs(app.app.get(DatabaseClock).now() - Number(rows[0].ms))).toBeLessThan(1000);
  });
});

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
