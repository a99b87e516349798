import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { ClaimStrategyName, Job, JobContext, JobHandler, JobHandlerHost, JobStatus, QueuesService } from '@conveyor/core';
import { ClaimStrategy } from '@conveyor/core/consumer/claiming';
import { CLAIM_STRATEGY } from '@conveyor/core/config/conveyor.constants';
import { MaintenanceService } from '@conveyor/core/maintenance/maintenance.service';
import { WorkerPool } from '@conveyor/core/consumer/worker-pool.service';
// Not public API: the conformance suite drives the Completer directly to play a worker that lost its claim.
import { Completer } from '@conveyor/core/consumer/completer.service';
import { WorkerConnection } from '@conveyor/core/storage/connections/worker-connection.service';
import { completedRow } from '@conveyor/core/consumer/outcome-rows';
import { createInvocationsTableSql, invocationsTable, RECORDER_POOL, RecordingHandler, RecordPayload } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const LEASE_MS = 30_000;
/** Handler timeout of the worker app: short, so the timeout case is quick. */
const TIMEOUT_MS = 400;
/** Backoff of the flaky handler: long enough to see the job wait in RETRYING. */
const FLAKY_BACKOFF_MS = 1_000;
/** Payload size of the payload-budget cases: a few of them make a budget, without slowing the suite. */
const BLOB_BYTES = 1_000_000;

/** Fails its first attempt, then succeeds; a fixed backoff (no jitter) makes run_at predictable. */
@Injectable()
@JobHandler('CONFORMANCE_FLAKY', { maxAttempts: 3, backoff: { baseMs: FLAKY_BACKOFF_MS, factor: 2, maxMs: 10_000, jitter: 0 } })
class FlakyOnceHandler extends JobHandlerHost<Record<string, never>> {
  handle(_job: Job, ctx: JobContext): { attempt: number } {
    if (ctx.attempt === 1) throw new Error('first attempt fails');
    return { attempt: ctx.attempt };
  }
}

/**
 * The claim contract, run unchanged against each strategy (as River runs one suite against every driver):
 * order, scheduling, pause and filters, exclusivity, retries and backoff, DEAD after the last attempt, the
 * control errors, timeouts, and fencing of a stale completion.
 *
 * Two apps per strategy, each in its own schema: `claimer` runs no workers, so the test alone claims there
 * (calling the strategy directly) and can assert exact rows; `runner` runs workers, for the behaviours that
 * need a handler to run.
 */
function claimConformanceSuite(strategy: ClaimStrategyName): void {
  const url = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let claimSchema: TestSchema;
  let runSchema: TestSchema;
  let recorder: Pool;
  let claimer: TestApp;
  let runner: TestApp;
  let strategyUnderTest: ClaimStrategy;

  const claim = async (limit: number, workerId = 'conformance', more: { excludedQueues?: string[]; maxPayloadBytes?: number } = {}) =>
    (
      await strategyUnderTest.claim(
        { types: ['TEST_RECORD'], excludedQueues: more.excludedQueues ?? [], limit, maxPayloadBytes: more.maxPayloadBytes },
        workerId,
        LEASE_MS,
      )
    ).jobs;
  const rowOf = async (id: string) => (await claimer.sql.query(`SELECT * FROM ${claimer.jobsTable} WHERE id = $1`, [id])).rows[0];
  const resetClaimSchema = () => claimer.sql.query(`TRUNCATE ${claimer.jobsTable}; DELETE FROM ${claimer.db.queuesTable}`);
  const claimedIds = async (limit: number) => (await claim(limit)).map((j) => j.id).sort();
  /** Enqueues `count` jobs with priorities 0, 1, 2, … (fixing the claim order); `ids(from, to)` names a slice of them, sorted. */
  const enqueueInClaimOrder = async (count: number) => {
    const jobs = await claimer.jobs.enqueueMany(
      Array.from({ length: count }, (_, n) => ({ type: 'TEST_RECORD', payload: { priority: n }, priority: n })),
    );
    return (from: number, to: number) =>
      jobs
        .slice(from, to)
        .map((j) => j.id)
        .sort();
  };
  /**
   * Enqueues `count` jobs in claim order, as enqueueInClaimOrder, each with an incompressible payload (random base64)
   * that stores BLOB_BYTES and a little more; returns their ids in that order.
   */
  const enqueueLargeInClaimOrder = async (count: number) => {
    const blob = randomBytes((BLOB_BYTES * 3) / 4).toString('base64');
    const jobs = await claimer.jobs.enqueueMany(
      Array.from({ length: count }, (_, n) => ({ type: 'TEST_RECORD', payload: { blob }, priority: n })),
    );
    return jobs.map((j) => j.id);
  };
  /** The columns of rows a claim must leave as they were, by id. */
  const untouched = async (ids: string[]) =>
    (
      await claimer.sql.query(
        `SELECT id, status, attempts, lease_token, locked_by, version, updated_at, pg_column_size(payload) AS stored
         FROM ${claimer.jobsTable} WHERE id = ANY($1) ORDER BY priority`,
        [ids],
      )
    ).rows;
  /** What a competitor's claim in flight does to the rows it takes: locks them, in a transaction left open on `competitor`. */
  const holdRows = async (competitor: PoolClient, ids: string[]) => {
    await competitor.query('BEGIN');
    await competitor.query(`SELECT id FROM ${claimer.jobsTable} WHERE id = ANY($1) FOR UPDATE`, [ids]);
  };
  /** Runs `body` while a competitor's open transaction holds `ids` (holdRows); the competitor lets go after it. */
  const whileHeld = async (ids: string[], body: (competitor: PoolClient) => Promise<void>) => {
    const competitor = await claimer.sql.connect();
    try {
      await holdRows(competitor, ids);
      await body(competitor);
    } finally {
      await competitor.query('ROLLBACK');
      competitor.release();
    }
  };
  /**
   * On an emptied schema: one job, claimed by 'slow-worker', then rescued — what the sweeper does to the row
   * (RETRYING, lease cleared, version bumped) — so `stale` is the claim of a worker that lost it.
   */
  const claimedThenRescued = async () => {
    await resetClaimSchema();
    const { id } = await claimer.jobs.enqueue('TEST_RECORD', {});
    const [stale] = await claim(1, 'slow-worker');
    await claimer.sql.query(
      `UPDATE ${claimer.jobsTable} SET status = 'RETRYING', locked_by = NULL, locked_until = NULL, lease_token = NULL,
         version = version + 1 WHERE id = $1`,
      [id],
    );
    return { id, stale };
  };
  /** Writes an outcome through the Completer, as a worker does; resolves with whether it was written. */
  const writeOutcome = (job: Job, result: unknown) =>
    new Promise<boolean>((resolve) => claimer.app.get(Completer).add(completedRow(job, result), resolve));

  const run = (payload: RecordPayload, opts: { maxAttempts?: number; delayMs?: number } = {}) =>
    runner.jobs.enqueue('TEST_RECORD', payload, opts);
  const settled = (id: string, status: JobStatus, timeoutMs = 10_000) =>
    waitFor(
      async () => {
        const j = await runner.jobs.get(id);
        return j.status === status ? j : null;
      },
      { timeoutMs, message: `job ${id} to be ${status}` },
    );
  const invocations = async (id: string) =>
    (
      await runner.sql.query<{ attempt: number; at: Date }>(
        `SELECT attempt, at FROM ${invocationsTable(runSchema.schema)} WHERE job_id = $1 ORDER BY at`,
        [id],
      )
    ).rows;

  beforeAll(async () => {
    const tag = strategy.replace('-', '_');
    claimSchema = await createTestSchema(`conf_claim_${tag}`);
    runSchema = await createTestSchema(`conf_run_${tag}`);
    recorder = new Pool({ connectionString: url, max: 2 });
    await recorder.query(createInvocationsTableSql(claimSchema.schema));
    await recorder.query(createInvocationsTableSql(runSchema.schema));
    claimer = await createTestApp({
      schema: claimSchema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: claimSchema.schema } }, RecordingHandler],
      // SOMETHING_ELSE has no handler here: accepted as an external type, never claimed for TEST_RECORD.
      engine: { claimStrategy: strategy, runWorkers: false, externalTypes: ['SOMETHING_ELSE'] },
      http: false,
    });
    runner = await createTestApp({
      schema: runSchema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: runSchema.schema } }, RecordingHandler, FlakyOnceHandler],
      engine: { claimStrategy: strategy, concurrency: 4, defaultTimeoutMs: TIMEOUT_MS },
      http: false,
    });
    strategyUnderTest = claimer.app.get<ClaimStrategy>(CLAIM_STRATEGY);
  });

  afterAll(async () => {
    await runner?.close();
    await claimer?.close();
    await recorder?.end();
    await runSchema?.drop();
    await claimSchema?.drop();
  });

  it('is the configured strategy', () => {
    expect(strategyUnderTest.name).toBe(strategy);
    expect(runner.app.get<ClaimStrategy>(CLAIM_STRATEGY).name).toBe(strategy);
  });

  it('claims due jobs by priority, then run_at, and marks them RUNNING under a fresh lease', async () => {
    await resetClaimSchema();
    const ago = (ms: number) => new Date(Date.now() - ms);
    // Inserted out of order on purpose.
    const [p5recent, p0recent, p0older, pMinus1, p5oldest] = await Promise.all(
      [
        { priority: 5, runAt: ago(10_000) },
        { priority: 0, runAt: ago(1_000) },
        { priority: 0, runAt: ago(5_000) },
        { priority: -1, runAt: ago(2_000) },
        { priority: 5, runAt: ago(20_000) },
      ].map(async (o) => (await claimer.jobs.enqueue('TEST_RECORD', {}, o)).id),
    );
    const before = new Map((await claimer.sql.query(`SELECT id, version FROM ${claimer.jobsTable}`)).rows.map((r) => [r.id, r.version]));

    const first = await claim(2);
    const second = await claim(10);
    const claimed = [...first, ...second];
    expect(first.map((j) => j.id)).toEqual([pMinus1, p0older]);
    expect(second.map((j) => j.id)).toEqual([p0recent, p5oldest, p5recent]);

    for (const j of claimed) {
      const row = await rowOf(j.id);
      expect(row).toMatchObject({ status: 'RUNNING', attempts: 1, locked_by: 'conformance', lease_token: j.leaseToken });
      // A version-4 layout: external workers' lease tokens are checked with class-validator's IsUUID.
      expect(row.lease_token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.locked_until.getTime()).toBeGreaterThan(Date.now() + LEASE_MS - 5_000);
      expect(row.version).toBe(before.get(j.id) + 1);
      expect(row.started_at).not.toBeNull();
      // What the strategy hands the worker is what is stored.
      expect(j).toMatchObject({ status: JobStatus.RUNNING, attempts: 1, lockedBy: 'conformance', version: row.version });
      expect([j.seq, j.priority, j.maxAttempts, j.snoozes, j.queue, j.type]).toEqual([
        String(row.seq),
        row.priority,
        row.max_attempts,
        row.snoozes,
        row.queue,
        row.type,
      ]);
      expect([j.runAt, j.createdAt, j.startedAt]).toEqual([row.run_at, row.created_at, row.started_at]);
      expect(j.createdAt).not.toEqual(j.runAt);
    }
    // Each claim has tokens of its own: none of the first claim's is among the second's.
    const secondTokens = new Set(second.map((j) => j.leaseToken));
    for (const j of first) expect(secondTokens.has(j.leaseToken)).toBe(false);
    expect(await claim(10)).toEqual([]);
  });

  it('hands the worker the timestamps as stored when the job was submitted to run at once (created_at = run_at)', async () => {
    await resetClaimSchema();
    const { id } = await claimer.jobs.enqueue('TEST_RECORD', {});
    const [job] = await claim(1);
    const row = await rowOf(id);
    expect(row.created_at).toEqual(row.run_at);
    expect([job.runAt, job.createdAt, job.startedAt, job.updatedAt]).toEqual([row.run_at, row.created_at, row.started_at, row.updated_at]);
  });

  it('does not claim a scheduled job before its run_at, and claims it once due', async () => {
    await resetClaimSchema();
    const job = await claimer.jobs.enqueue('TEST_RECORD', {}, { delayMs: 600 });
    expect(job.status).toBe(JobStatus.SCHEDULED);
    expect(await claim(10)).toEqual([]);
    expect((await rowOf(job.id)).status).toBe('SCHEDULED');

    const [due] = await waitFor(
      async () => {
        const jobs = await claim(10);
        return jobs.length > 0 ? jobs : null;
      },
      { message: 'the scheduled job to become claimable' },
    );
    expect(due.id).toBe(job.id);
    const row = await rowOf(job.id);
    expect(row.started_at.getTime()).toBeGreaterThanOrEqual(row.run_at.getTime());
  });

  it('a worker runs a scheduled job once it is due, not before', async () => {
    const job = await run({}, { delayMs: 700 });
    const done = await settled(job.id, JobStatus.COMPLETED);
    const calls = await invocations(job.id);
    expect(calls).toHaveLength(1);
    expect(calls[0].at.getTime()).toBeGreaterThanOrEqual(done.runAt.getTime());
  });

  it('skips paused queues, excluded queues and types it was not asked for', async () => {
    await resetClaimSchema();
    const enqueue = async (type: string, queue: string) => (await claimer.jobs.enqueue(type, {}, { queue })).id;
    const inPaused = await enqueue('TEST_RECORD', 'paused-q');
    const inExcluded = await enqueue('TEST_RECORD', 'excluded-q');
    const otherType = await enqueue('SOMETHING_ELSE', 'open-q');
    const open = await enqueue('TEST_RECORD', 'open-q');
    const queues = claimer.app.get(QueuesService);
    await queues.setPaused('paused-q', true);

    expect((await claim(10, 'conformance', { excludedQueues: ['excluded-q'] })).map((j) => j.id)).toEqual([open]);
    const waiting = (await claimer.sql.query(`SELECT id FROM ${claimer.jobsTable} WHERE status = 'PENDING'`)).rows.map((r) => r.id);
    expect(waiting.sort()).toEqual([inPaused, inExcluded, otherType].sort());

    // Resumed and no longer excluded, both are claimable; the other type never is.
    await queues.setPaused('paused-q', false);
    expect((await claim(10)).map((j) => j.id).sort()).toEqual([inPaused, inExcluded].sort());
  });

  it('never hands one job to two concurrent claimers', async () => {
    await resetClaimSchema();
    const JOBS = 300;
    await claimer.jobs.enqueueMany(Array.from({ length: JOBS }, (_, n) => ({ type: 'TEST_RECORD', payload: { n } })));
    // 24 claims at once over the app's 10 connections: up to 10 claim transactions race on the same head.
    const batches = await Promise.all(Array.from({ length: 24 }, (_, i) => claim(15, `claimer-${i}`)));
    const owner = new Map<string, Job>();
    for (const [i, batch] of batches.entries()) {
      for (const j of batch) {
        expect(owner.has(j.id)).toBe(false);
        owner.set(j.id, j);
        expect(j.lockedBy).toBe(`claimer-${i}`);
      }
    }
    // The database agrees with every caller about who holds what.
    const { rows } = await claimer.sql.query(`SELECT id, locked_by, lease_token FROM ${claimer.jobsTable} WHERE status = 'RUNNING'`);
    expect(rows).toHaveLength(owner.size);
    for (const r of rows) expect(owner.get(r.id)).toMatchObject({ lockedBy: r.locked_by, leaseToken: r.lease_token });
    // Nothing was lost: what no claimer got is still claimable.
    const rest = await claim(JOBS);
    expect(owner.size + rest.length).toBe(JOBS);
    expect(rest.every((j) => !owner.has(j.id))).toBe(true);
  });

  it('takes the jobs behind a head that another claimer holds, instead of coming back empty', async () => {
    await resetClaimSchema();
    const ids = await enqueueInClaimOrder(13);
    expect(await claimedIds(1)).toEqual(ids(0, 1));
    // Another claimer's statement is still running: it holds the next five rows of the head.
    await whileHeld(ids(1, 6), async () => {
      expect(await claimedIds(5)).toEqual(ids(6, 11));
    });
    // The held rows were not touched: still claimable, now that the competitor let go.
    expect(await claimedIds(5)).toEqual(ids(1, 6));
  });

  it('coming from an empty queue, takes the jobs behind a head that competitors hold, instead of resting', async () => {
    await resetClaimSchema();
    // Idle: its last claims found nothing, so nothing tells it that competitors are about.
    expect(await claim(5)).toEqual([]);
    expect(await claim(5)).toEqual([]);
    const ids = await enqueueInClaimOrder(30);
    // Two competitors woke to the same notification first: their claims hold the first twenty rows.
    await whileHeld(ids(0, 20), async () => {
      expect(await claimedIds(5)).toEqual(ids(20, 25));
    });
  });

  it('reading past a held head, takes the free jobs first in claim order, whatever their order in the table', async () => {
    await resetClaimSchema();
    // Inserted last to first in claim order (priority 39 first), so the table holds them the other way round.
    const jobs = await claimer.jobs.enqueueMany(
      Array.from({ length: 40 }, (_, n) => ({ type: 'TEST_RECORD', payload: { priority: 39 - n }, priority: 39 - n })),
    );
    const inClaimOrder = [...jobs].reverse().map((j) => j.id);
    await whileHeld(inClaimOrder.slice(0, 10), async () => {
      // Whatever window the strategy reads past the held rows, it takes the five next in claim order.
      expect(await claimedIds(5)).toEqual(inClaimOrder.slice(10, 15).sort());
      expect(await claimedIds(5)).toEqual(inClaimOrder.slice(15, 20).sort());
    });
  });

  it('once it has met a competitor, takes the jobs behind a held head in a single statement', async () => {
    await resetClaimSchema();
    const ids = await enqueueInClaimOrder(20);
    const connections = claimer.app.get(WorkerConnection);
    const query = connections.runner.query;
    let statements = 0;
    connections.runner.query = (...args) => {
      statements++;
      return query(...args);
    };
    try {
      // A competitor's claim is in flight on the head; the first meeting may take the optimistic strategy a
      // second round to read past it. Then that claim commits and the competitor's next one holds the new head.
      await whileHeld(ids(0, 5), async (competitor) => {
        expect(await claimedIds(5)).toEqual(ids(5, 10));
        await competitor.query(`UPDATE ${claimer.jobsTable} SET status = 'RUNNING', version = version + 1 WHERE id = ANY($1)`, [ids(0, 5)]);
        await competitor.query('COMMIT');
        await holdRows(competitor, ids(10, 15));
        statements = 0;
        expect(await claimedIds(5)).toEqual(ids(15, 20));
        expect(statements).toBe(1);
      });
    } finally {
      connections.runner.query = query;
    }
  });

  it('with a payload budget, takes jobs in claim order while their stored payloads fit, and leaves the rest as they were', async () => {
    await resetClaimSchema();
    const ids = await enqueueLargeInClaimOrder(5);
    const before = await untouched(ids);
    // Stored uncompressed: the budget counts what the rows hold.
    for (const row of before) expect(row.stored).toBeGreaterThan(BLOB_BYTES);
    const budget = 2.5 * BLOB_BYTES;

    const first = await claim(5, 'conformance', { maxPayloadBytes: budget });
    // Two fit in the budget: the claim statement returned those only, and the others are not claimed, nor changed.
    expect(first.map((j) => j.id)).toEqual(ids.slice(0, 2));
    expect(await untouched(ids.slice(2))).toEqual(before.slice(2));
    expect(before.slice(2).map((r) => [r.status, r.attempts, r.lease_token])).toEqual(Array(3).fill(['PENDING', 0, null]));

    expect((await claim(5, 'conformance', { maxPayloadBytes: budget })).map((j) => j.id)).toEqual(ids.slice(2, 4));
    // A job larger than the whole budget is still taken, alone: a claim takes at least one.
    expect((await claim(5, 'conformance', { maxPayloadBytes: BLOB_BYTES / 2 })).map((j) => j.id)).toEqual(ids.slice(4));
  });

  it('with a payload budget, reading past held rows, takes the free jobs that fit in it and no more', async () => {
    await resetClaimSchema();
    const ids = await enqueueLargeInClaimOrder(14);
    const held = [...ids.slice(0, 2), ...ids.slice(4, 10)];
    await whileHeld(held, async () => {
      const before = await untouched(ids.slice(11));
      // Three fit in the budget. An optimistic claim wins two free jobs among the first it reads, loses the others to
      // the competitor and reads again: there only what the budget has left, one job.
      const jobs = await claim(5, 'conformance', { maxPayloadBytes: 3.5 * BLOB_BYTES });
      expect(jobs.map((j) => j.id)).toEqual([ids[2], ids[3], ids[10]]);
      expect(await untouched(ids.slice(11))).toEqual(before);
    });
  });

  it('retries a failed attempt after its backoff, with the attempt in the error history', async () => {
    const job = await runner.jobs.enqueue('CONFORMANCE_FLAKY', {});
    const retrying = await settled(job.id, JobStatus.RETRYING);
    expect(retrying.attempts).toBe(1);
    expect(retrying.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'failed', error: 'Error: first attempt fails' })]);
    expect(retrying.lockedBy).toBeNull();
    // run_at and updated_at come from the same statement's clock: the gap is the backoff, exactly.
    expect(retrying.runAt.getTime() - retrying.updatedAt.getTime()).toBeGreaterThanOrEqual(FLAKY_BACKOFF_MS - 1);
    expect(retrying.runAt.getTime() - retrying.updatedAt.getTime()).toBeLessThanOrEqual(FLAKY_BACKOFF_MS + 1);

    const done = await settled(job.id, JobStatus.COMPLETED);
    expect(done.attempts).toBe(2);
    expect(done.result).toEqual({ attempt: 2 });
    expect(done.errors).toHaveLength(1);
    expect(done.startedAt!.getTime()).toBeGreaterThanOrEqual(retrying.runAt.getTime());
  });

  it('is DEAD after max attempts, with one history entry per attempt', async () => {
    const job = await run({ alwaysFail: true }, { maxAttempts: 3 });
    const dead = await settled(job.id, JobStatus.DEAD);
    expect(dead.attempts).toBe(3);
    expect(dead.errors.map((e) => [e.attempt, e.kind, e.error])).toEqual([
      [1, 'failed', 'Error: attempt 1 failed'],
      [2, 'failed', 'Error: attempt 2 failed'],
      [3, 'failed', 'Error: attempt 3 failed'],
    ]);
    expect(dead.lastError).toBe('Error: attempt 3 failed');
    expect(dead.finishedAt).not.toBeNull();
    expect((await invocations(job.id)).map((c) => c.attempt)).toEqual([1, 2, 3]);
  });

  it('RetryLaterError runs the job again at the time asked, without using an attempt', async () => {
    const job = await run({ snoozeMs: 1_000, snoozeTimes: 1 }, { maxAttempts: 1 });
    const snoozed = await settled(job.id, JobStatus.RETRYING);
    expect(snoozed.attempts).toBe(0);
    expect(snoozed.snoozes).toBe(1);
    const [entry] = snoozed.errors as unknown as { kind: string; retryAt: string }[];
    expect(entry.kind).toBe('retry-later');
    expect(Math.abs(snoozed.runAt.getTime() - new Date(entry.retryAt).getTime())).toBeLessThan(100);

    const done = await settled(job.id, JobStatus.COMPLETED);
    expect(done).toMatchObject({ attempts: 1, snoozes: 1, result: { ok: true, attempt: 1 } });
    const calls = await invocations(job.id);
    expect(calls.map((c) => c.attempt)).toEqual([1, 1]);
    expect(calls[1].at.getTime()).toBeGreaterThanOrEqual(snoozed.runAt.getTime());
  });

  it('PermanentJobError is DEAD after one attempt', async () => {
    const job = await run({ permanent: true }, { maxAttempts: 5 });
    const dead = await settled(job.id, JobStatus.DEAD);
    expect(dead.attempts).toBe(1);
    expect(dead.errors.map((e) => [e.attempt, e.kind])).toEqual([[1, 'permanent']]);
    expect(await invocations(job.id)).toHaveLength(1);
  });

  it('CancelJobError is CANCELLED, not retried', async () => {
    const job = await run({ cancel: true }, { maxAttempts: 5 });
    const cancelled = await settled(job.id, JobStatus.CANCELLED);
    expect(cancelled.attempts).toBe(1);
    expect(cancelled.errors.map((e) => [e.attempt, e.kind])).toEqual([[1, 'cancelled']]);
    expect(cancelled.finishedAt).not.toBeNull();
    expect(await invocations(job.id)).toHaveLength(1);
  });

  it('fails an attempt that outlives its timeout and frees the slot even if the handler ignores its signal', async () => {
    // As many hung handlers as the pool has slots: they never settle, whatever their signal says.
    const hung = await Promise.all(Array.from({ length: 4 }, () => run({ hang: true }, { maxAttempts: 1 })));
    const after = await run({});
    for (const job of hung) {
      const dead = await settled(job.id, JobStatus.DEAD);
      expect(dead.errors.map((e) => [e.attempt, e.kind, e.error])).toEqual([
        [1, 'timeout', `JobTimeoutError: Handler timed out after ${TIMEOUT_MS} ms.`],
      ]);
    }
    // Only freed slots could run this one.
    await settled(after.id, JobStatus.COMPLETED);
    await waitFor(() => runner.app.get(WorkerPool).stats().running === 0, { message: 'every slot to be free' });
  });

  it('refuses the completion of a worker whose job was rescued and claimed again', async () => {
    const { id, stale } = await claimedThenRescued();
    // Another worker claims it.
    const [fresh] = await claim(1, 'new-worker');
    expect(fresh).toMatchObject({ id, attempts: 2 });

    const before = await rowOf(id);
    expect(await writeOutcome(stale, { late: true })).toBe(false);
    expect(await rowOf(id)).toEqual(before);

    expect(await writeOutcome(fresh, { onTime: true })).toBe(true);
    expect(await rowOf(id)).toMatchObject({ status: 'COMPLETED', result: { onTime: true }, lease_token: null });
  });

  it('pairs every token with its job: a stale outcome written beside the claim that took its job again changes nothing', async () => {
    const { id, stale } = await claimedThenRescued();
    const { id: siblingId } = await claimer.jobs.enqueue('TEST_RECORD', {});
    // One claim takes the rescued job and another: the stale holder's outcome and the sibling's go out in one write.
    const again = await claim(2, 'new-worker');
    expect(again.map((j) => j.id).sort()).toEqual([id, siblingId].sort());
    const sibling = again.find((j) => j.id === siblingId)!;

    const before = await rowOf(id);
    const written = await Promise.all([writeOutcome(stale, { late: true }), writeOutcome(sibling, { ok: true })]);
    expect(written).toEqual([false, true]);
    expect(await rowOf(id)).toEqual(before);
    expect(await rowOf(siblingId)).toMatchObject({ status: 'COMPLETED', result: { ok: true } });
  });

  it('refuses the completion of a worker whose lease expired and was swept', async () => {
    await resetClaimSchema();
    const { id } = await claimer.jobs.enqueue('TEST_RECORD', {});
    const [stale] = await claim(1, 'frozen-worker');
    await claimer.sql.query(`UPDATE ${claimer.jobsTable} SET locked_until = now() - interval '1 second' WHERE id = $1`, [id]);
    const maintenance = claimer.app.get(MaintenanceService);
    const swept = await waitFor(
      async () => {
        await maintenance.tick();
        const row = await rowOf(id);
        return row.status === 'RETRYING' ? row : null;
      },
      { message: 'the sweeper to rescue the expired lease' },
    );
    expect(swept).toMatchObject({ lease_token: null, locked_by: null, attempts: 1 });
    expect(swept.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'lease-expired', worker: 'frozen-worker' })]);

    expect(await writeOutcome(stale, { late: true })).toBe(false);
    expect(await rowOf(id)).toEqual(swept);
  });
}

describe.each<ClaimStrategyName>(['skip-locked', 'optimistic'])('claim conformance: %s', claimConformanceSuite);
