import { Injectable } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { Client, Pool } from 'pg';
import { DataSource } from 'typeorm';
import { ConveyorEvents, Job, JobHandler, JobHandlerHost } from '@conveyor/core';
import { NotificationListener } from '@conveyor/core/consumer/notification-listener.service';
import { SOLO_PAYLOAD_CHARS } from '@conveyor/core/submission/statement-budget';
import { completedWithin } from '../support/job-queries';
import { createInvocationsTableSql, invocationsTable, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/** Far enough ahead that a barrier notification arms a timer in the instances that hear it, and wakes nothing. */
const FAR_FUTURE = Date.UTC(2100, 0, 1);

/** A type only instance B runs. */
@Injectable()
@JobHandler('TEST_ELSEWHERE')
class ElsewhereHandler extends JobHandlerHost {
  handle(job: Job): unknown {
    return { ran: job.id };
  }
}

/**
 * An instance that would claim what it submits at once sends the insert with its claim right behind it and no
 * NOTIFY (LocalPickup); whatever it cannot take must still reach the other instances. Two instances share one
 * schema, both with a one-minute fallback poll, so a job the other instance runs within seconds was announced to
 * it; an observer connection LISTENs on the channel and sees every NOTIFY.
 */
describe('quiet inserts: an instance claims its own submissions and announces the rest', () => {
  let schema: TestSchema;
  let recorder: Pool;
  let a: TestApp;
  let b: TestApp;
  let observer: Client;
  const heard: string[] = [];
  let barriers = 0;

  /** The notifications committed since the last call: one sent now arrives after all of them. */
  const heardSoFar = async (): Promise<string[]> => {
    const barrier = String(FAR_FUTURE + ++barriers);
    await observer.query('SELECT pg_notify($1, $2)', [a.db.channel, barrier]);
    await waitFor(() => heard.includes(barrier), { message: 'the observer to hear its own barrier' });
    const before = heard.slice(0, heard.indexOf(barrier));
    heard.length = 0;
    return before;
  };

  /** The worker that ran a job, from the recording handler's table. */
  const ranOn = async (jobId: string): Promise<string> => {
    const { rows } = await recorder.query<{ worker: string }>(`SELECT worker FROM ${invocationsTable(schema.schema)} WHERE job_id = $1`, [
      jobId,
    ]);
    return rows[0].worker;
  };

  beforeAll(async () => {
    schema = await createTestSchema('quietinserts');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    const recording = [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler];
    a = await createTestApp({
      schema: schema.schema,
      providers: recording,
      // TEST_ELSEWHERE is declared external here (for HTTP workers): A accepts it but never runs it; B does.
      engine: {
        workerId: 'instance-a',
        pollIntervalMs: 60_000,
        concurrency: 2,
        prefetch: 2,
        queueConcurrency: { slow: 1 },
        externalTypes: ['TEST_ELSEWHERE'],
      },
      http: false,
      appName: 'quiet-a',
    });
    b = await createTestApp({
      schema: schema.schema,
      providers: [...recording, ElsewhereHandler],
      engine: { workerId: 'instance-b', pollIntervalMs: 60_000 },
      http: false,
      appName: 'quiet-b',
    });
    await waitFor(() => a.app.get(NotificationListener).isListening && b.app.get(NotificationListener).isListening, {
      message: 'both listeners to listen',
    });
    observer = new Client({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL });
    observer.on('notification', (msg) => heard.push(msg.payload ?? ''));
    await observer.connect();
    await observer.query(`LISTEN "${a.db.channel}"`);
  });

  afterAll(async () => {
    await observer?.end();
    await a?.close();
    await b?.close();
    await recorder?.end();
    await schema?.drop();
  });

  it('runs what it submits itself with the claim sent behind the insert, and no NOTIFY', async () => {
    await heardSoFar();
    const claims: number[] = [];
    const off = a.app.get(ConveyorEvents).on('claimed', (jobs) => claims.push(jobs.length));
    try {
      for (let i = 0; i < 5; i++) {
        const job = await a.jobs.enqueue('TEST_RECORD', { i });
        await completedWithin(a.jobs, job.id, 3_000);
        expect(await ranOn(job.id)).toBe('instance-a');
      }
      const pair = await a.jobs.enqueueMany([
        { type: 'TEST_RECORD', payload: {} },
        { type: 'TEST_RECORD', payload: {} },
      ]);
      for (const job of pair) await completedWithin(a.jobs, job.id, 3_000);
    } finally {
      off();
    }
    // One claim per submission, and it found the jobs: it ran after the insert had committed.
    expect(claims).toEqual([1, 1, 1, 1, 1, 2]);
    expect(await heardSoFar()).toEqual([]);
  });

  it('announces a job its claim leaves behind (its queue at the cap here), and the other instance runs it', async () => {
    const busy = await a.jobs.enqueue('TEST_RECORD', { sleepMs: 3_000 }, { queue: 'slow' });
    await waitFor(async () => (await a.jobs.get(busy.id)).status === 'RUNNING', { message: 'the slow queue to be busy on A' });
    await heardSoFar();
    // A has room and runs the type, so the insert is quiet; its claim skips the capped queue and announces the job.
    const waiting = await a.jobs.enqueue('TEST_RECORD', {}, { queue: 'slow' });
    // Within the slow job's sleep: A could only take it once that job is done.
    await completedWithin(a.jobs, waiting.id, 2_000);
    expect(await ranOn(waiting.id)).toBe('instance-b');
    expect((await heardSoFar()).length).toBeGreaterThan(0);
    await completedWithin(a.jobs, busy.id, 5_000);
  });

  it('announces what it cannot run: another type, more jobs than it has room for, a scheduled job', async () => {
    await heardSoFar();
    const elsewhere = await a.jobs.enqueue('TEST_ELSEWHERE', {});
    await completedWithin(a.jobs, elsewhere.id, 3_000);
    expect((await heardSoFar()).length).toBe(1);

    const many = await a.jobs.enqueueMany(Array.from({ length: 10 }, () => ({ type: 'TEST_RECORD', payload: {} })));
    for (const job of many) await completedWithin(a.jobs, job.id, 3_000);
    expect((await heardSoFar()).length).toBeGreaterThan(0);

    const later = await a.jobs.enqueue('TEST_RECORD', {}, { delayMs: 300 });
    await completedWithin(a.jobs, later.id, 3_000);
    expect((await heardSoFar()).length).toBeGreaterThan(0);
  });

  it('inserts a job with a large payload on the pool and announces it: storing it would hold up the claims behind it', async () => {
    await heardSoFar();
    const large = await a.jobs.enqueue('TEST_RECORD', { blob: 'x'.repeat(SOLO_PAYLOAD_CHARS) });
    // Announced, so either instance may run it.
    await completedWithin(a.jobs, large.id, 5_000);
    expect((await heardSoFar()).length).toBe(1);
  });

  it('announces a job enqueued in the caller’s transaction, at its commit', async () => {
    await heardSoFar();
    const dataSource = a.app.get<DataSource>(getDataSourceToken());
    const job = await dataSource.transaction((manager) => a.jobs.enqueue('TEST_RECORD', {}, { manager }));
    await completedWithin(a.jobs, job.id, 3_000);
    expect((await heardSoFar()).length).toBeGreaterThan(0);
  });

  it('announces every submission of an instance that runs no workers', async () => {
    const producer = await createTestApp({
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      engine: { runWorkers: false },
      http: false,
      appName: 'quiet-producer',
    });
    try {
      await heardSoFar();
      const job = await producer.jobs.enqueue('TEST_RECORD', {});
      await completedWithin(producer.jobs, job.id, 3_000);
      expect((await heardSoFar()).length).toBe(1);
    } finally {
      await producer.close();
    }
  });
});
