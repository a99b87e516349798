import { Injectable } from '@nestjs/common';
import { Job, JobContext, JobHandler, JobHandlerHost, JobsService, JobStatus } from '@conveyor/core';
import { DrainTimeoutError, drainQueue } from '@conveyor/core/testing';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

/** Released by the test once drainQueue listens, so every attempt of the test happens while it does. */
let openGate: () => void = () => undefined;
let gate: Promise<void> = Promise.resolve();

/** Waits for the gate, then enqueues a follow-up job: drainQueue must wait for jobs made while it drains. */
@Injectable()
@JobHandler('DRAIN_PARENT')
class ParentHandler extends JobHandlerHost<{ children: number }> {
  constructor(private readonly jobs: JobsService) {
    super();
  }

  async handle(job: Job<{ children: number }>): Promise<string> {
    await gate;
    for (let i = 0; i < job.payload.children; i++) await this.jobs.enqueue('DRAIN_CHILD', { parent: job.id });
    return 'parent done';
  }
}

@Injectable()
@JobHandler('DRAIN_CHILD')
class ChildHandler extends JobHandlerHost<{ parent: string }> {
  handle(job: Job<{ parent: string }>): { parent: string } {
    return { parent: job.payload.parent };
  }
}

/** Fails every attempt; its retry is an hour away, so draining does not wait for it. */
@Injectable()
@JobHandler('DRAIN_FAILING', { maxAttempts: 3, backoff: { baseMs: 3_600_000, jitter: 0 } })
class FailingHandler extends JobHandlerHost {
  async handle(): Promise<never> {
    await gate;
    throw new Error('always fails');
  }
}

/** Runs until its attempt is aborted: a queue that cannot drain. */
@Injectable()
@JobHandler('DRAIN_STUCK')
class StuckHandler extends JobHandlerHost {
  handle(_job: Job, ctx: JobContext): Promise<never> {
    return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted'))));
  }
}

/** StuckHandler's kind, one at a time: the jobs behind the running one stay due. */
@Injectable()
@JobHandler('DRAIN_STUCK_ONE_AT_A_TIME', { concurrency: 1 })
class StuckOneAtATimeHandler extends StuckHandler {}

describe('drainQueue (@conveyor/core/testing)', () => {
  let schema: TestSchema;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('drain');
    t = await createTestApp({
      schema: schema.schema,
      http: false,
      providers: [ParentHandler, ChildHandler, FailingHandler, StuckHandler, StuckOneAtATimeHandler],
    });
  });

  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  it('runs every due job, including jobs enqueued by handlers meanwhile, and reports each attempt', async () => {
    gate = new Promise((resolve) => (openGate = resolve));
    const parent = await t.jobs.enqueue('DRAIN_PARENT', { children: 2 });
    const failing = await t.jobs.enqueue('DRAIN_FAILING', {});
    const later = await t.jobs.enqueue('DRAIN_CHILD', { parent: 'none' }, { runAt: new Date(Date.now() + 3_600_000) });

    const draining = drainQueue(t.app, { timeoutMs: 15_000 });
    openGate();
    const result = await draining;

    expect(result.counts).toMatchObject({ completed: 3, failed: 1 });
    expect(result.attempts.map((a) => [a.job.type, a.outcome]).sort()).toEqual(
      [
        ['DRAIN_CHILD', 'completed'],
        ['DRAIN_CHILD', 'completed'],
        ['DRAIN_FAILING', 'failed'],
        ['DRAIN_PARENT', 'completed'],
      ].sort(),
    );
    expect((await t.jobs.get(parent.id)).status).toBe(JobStatus.COMPLETED);
    const { rows } = await t.sql.query(`SELECT status, result FROM ${t.jobsTable} WHERE type = 'DRAIN_CHILD' AND payload->>'parent' = $1`, [
      parent.id,
    ]);
    expect(rows).toEqual([
      { status: JobStatus.COMPLETED, result: { parent: parent.id } },
      { status: JobStatus.COMPLETED, result: { parent: parent.id } },
    ]);
    expect((await t.jobs.get(failing.id)).status).toBe(JobStatus.RETRYING);
    expect((await t.jobs.get(later.id)).status).toBe(JobStatus.SCHEDULED);
  });

  it('resolves at once with nothing to do when the queue is already drained', async () => {
    const result = await drainQueue(t.app, { timeoutMs: 5_000 });
    expect(result.attempts).toEqual([]);
  });

  it('rejects with DrainTimeoutError when a job is still running at the deadline', async () => {
    await t.jobs.enqueue('DRAIN_STUCK', {});
    await expect(drainQueue(t.app, { timeoutMs: 300 })).rejects.toBeInstanceOf(DrainTimeoutError);
  });

  it('says how many jobs were left at the deadline, due and running, as the database holds them', async () => {
    for (let i = 0; i < 3; i++) await t.jobs.enqueue('DRAIN_STUCK_ONE_AT_A_TIME', {});
    const error = await drainQueue(t.app, { timeoutMs: 300 }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DrainTimeoutError);
    const { rows } = await t.sql.query<{ due: number; running: number }>(
      `SELECT count(*) FILTER (WHERE status = 'PENDING')::int AS due, count(*) FILTER (WHERE status = 'RUNNING')::int AS running
         FROM ${t.jobsTable} WHERE type LIKE 'DRAIN_STUCK%'`,
    );
    // The earlier test's stuck job, and the three of this one: at most one of them started, the rest waits for its slot.
    expect(rows[0].due + rows[0].running).toBe(4);
    const { due, running, remaining, message } = error as DrainTimeoutError;
    expect({ due, running, remaining }).toEqual({ ...rows[0], remaining: 4 });
    expect(message).toBe(`The queue was not drained within 300 ms: ${due} ${due === 1 ? 'job' : 'jobs'} due, ${running} running`);
  });
});
