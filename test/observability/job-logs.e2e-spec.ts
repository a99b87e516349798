import { LogLevel } from '@nestjs/common';
import { Pool } from 'pg';
import request from 'supertest';
import { ConveyorOptions, JobStatus, JsonLogger } from '@conveyor/core';
import { CONVEYOR_OPTIONS } from '@conveyor/core/config/conveyor.constants';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text';
import { createInvocationsTableSql, invocationsTable, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

type Line = Record<string, unknown>;

describe('structured job logs', () => {
  let schema: TestSchema;
  let recorder: Pool;
  let t: TestApp;
  let workerId: string;
  let raw: string[] = [];

  /** Routes every Nest logger of the app to a JSON logger at `level`, writing into `raw`. */
  function logAt(level: LogLevel): void {
    raw = [];
    t.app.useLogger(new JsonLogger({ level, sink: { write: (line: string) => raw.push(line) } }));
  }

  const lines = (): Line[] => raw.map((l) => JSON.parse(l) as Line);
  const about = (jobId: string): Line[] => lines().filter((l) => l.jobId === jobId);

  beforeAll(async () => {
    schema = await createTestSchema('job_logs');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    t = await createTestApp({
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
    });
    workerId = t.app.get<ConveyorOptions>(CONVEYOR_OPTIONS).workerId;
  });

  afterAll(async () => {
    await t?.close();
    await recorder?.end();
    await schema?.drop();
  });

  async function runToCompletion(payload: object): Promise<string> {
    const job = await t.jobs.enqueue('TEST_RECORD', payload);
    await waitFor(async () => (await t.jobs.get(job.id)).status === JobStatus.COMPLETED, { message: 'the job to complete' });
    return job.id;
  }

  it('writes each attempt of a job as a JSON line carrying jobId, type, attempt and worker', async () => {
    logAt('debug');
    const jobId = await runToCompletion({ failTimes: 1 });
    const mine = await waitFor(() => {
      const found = about(jobId);
      return found.some((l) => l.msg === 'Job completed') && found;
    });

    expect(raw.every((l) => l.endsWith('\n') && !l.trimEnd().includes('\n'))).toBe(true); // one object per line
    const { rows } = await t.sql.query<{ worker: string }>(
      `SELECT DISTINCT worker FROM ${invocationsTable(schema.schema)} WHERE job_id = $1`,
      [jobId],
    );
    expect(rows).toEqual([{ worker: workerId }]);
    expect(mine).toEqual([
      expect.objectContaining({
        level: 'warn',
        context: 'Conveyor:Worker',
        msg: 'Job attempt failed; it will be retried',
        jobId,
        type: 'TEST_RECORD',
        attempt: 1,
        worker: workerId,
        queue: 'default',
        outcome: 'failed',
        error: 'Error: attempt 1 failed',
        retryInMs: 50,
      }),
      expect.objectContaining({
        level: 'debug',
        msg: 'Job completed',
        jobId,
        type: 'TEST_RECORD',
        attempt: 2,
        worker: workerId,
        outcome: 'completed',
      }),
    ]);
    expect(mine[1].durationMs).toEqual(expect.any(Number));
  });

  it('leaves out the lines below the configured level', async () => {
    logAt('warn');
    const jobId = await runToCompletion({ failTimes: 1 });
    await waitFor(() => about(jobId).length > 0, { message: 'the failed attempt to be logged' });
    // The completion is written before the job reads COMPLETED, and it is logged at debug: nothing more comes.
    expect(about(jobId).map((l) => [l.level, l.msg, l.attempt])).toEqual([['warn', 'Job attempt failed; it will be retried', 1]]);
    expect(lines().every((l) => l.level === 'warn' || l.level === 'error' || l.level === 'fatal')).toBe(true);
  });

  it('names the worker that lost a rescued job, and counts the rescue in /metrics', async () => {
    logAt('log');
    const { rows } = await t.sql.query<{ id: string }>(
      `INSERT INTO ${t.jobsTable} (type, status, attempts, max_attempts, locked_by, locked_until, lease_token, started_at)
       VALUES ('TEST_RECORD', 'RUNNING', 1, 3, 'ghost-worker', now() - interval '1 minute', gen_random_uuid(), now()) RETURNING id`,
    );
    const jobId = rows[0].id;
    const rescued = await waitFor(() => about(jobId).find((l) => l.msg === 'Rescued a job whose lease expired'), {
      message: 'the rescue to be logged',
    });
    expect(rescued).toMatchObject({
      level: 'warn',
      context: 'Conveyor:Sweeper',
      jobId,
      type: 'TEST_RECORD',
      attempt: 1,
      worker: 'ghost-worker',
      sweptBy: workerId,
    });

    // The sweeper announces the rescue after its notification statement, a moment after the log line.
    const scraped = async () => parsePrometheusText((await request(t.app.getHttpServer()).get('/metrics').expect(200)).text);
    await waitFor(async () => sampleValue(await scraped(), 'conveyor_lease_rescues_total') === 1, { message: 'the rescue to be counted' });
  });
});
