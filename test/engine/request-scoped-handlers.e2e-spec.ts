import { Inject, Injectable, Scope } from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import { Job, JobHandler, JobHandlerHost, JobStatus } from '@conveyor/core';
import { drainQueue } from '@conveyor/core/testing';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

let made = 0;

/** Request-scoped: Nest makes one per DI context, and `REQUEST` is the job of the attempt that asked. */
@Injectable({ scope: Scope.REQUEST })
class AttemptScope {
  readonly serial = ++made;

  constructor(@Inject(REQUEST) readonly job: Job) {}
}

/** Request-scoped through its dependency. */
@JobHandler('SCOPED_BY_DEPENDENCY')
class DependentHandler extends JobHandlerHost<{ n: number }> {
  constructor(private readonly scope: AttemptScope) {
    super();
  }

  handle(job: Job<{ n: number }>): { serial: number; ownJob: boolean } {
    return { serial: this.scope.serial, ownJob: this.scope.job.id === job.id };
  }
}

/** Request-scoped itself, by an @Injectable written below @JobHandler; no dependency makes it so. */
@JobHandler('SCOPED_ITSELF')
@Injectable({ scope: Scope.REQUEST })
class ScopedHandler extends JobHandlerHost<{ n: number }> {
  readonly serial = ++made;

  handle(): { serial: number } {
    return { serial: this.serial };
  }
}

/** Transient: Nest makes one per consumer, and the attempt is one. */
@JobHandler('TRANSIENT')
@Injectable({ scope: Scope.TRANSIENT })
class TransientHandler extends JobHandlerHost<{ n: number }> {
  readonly serial = ++made;

  handle(): { serial: number } {
    return { serial: this.serial };
  }
}

type Result = { serial: number; ownJob?: boolean };

describe('request-scoped handlers', () => {
  let schema: TestSchema;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('request_scope');
    t = await createTestApp({
      schema: schema.schema,
      http: false,
      providers: [AttemptScope, DependentHandler, ScopedHandler, TransientHandler],
    });
  });
  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  /** Runs three jobs of `type` and answers their stored rows. */
  async function runThree(type: string): Promise<Array<{ status: string; result: Result }>> {
    const ids = [];
    for (let n = 0; n < 3; n++) ids.push((await t.jobs.enqueue(type, { n })).id);
    await drainQueue(t.app, { timeoutMs: 10_000 });
    const { rows } = await t.sql.query<{ status: string; result: Result }>(`SELECT status, result FROM ${t.jobsTable} WHERE id = ANY($1)`, [
      ids,
    ]);
    expect(rows).toHaveLength(3);
    return rows;
  }

  it('runs a handler that depends on a request-scoped provider with a new one per job, given the job as its request', async () => {
    const rows = await runThree('SCOPED_BY_DEPENDENCY');
    for (const row of rows) expect(row).toEqual({ status: JobStatus.COMPLETED, result: { serial: expect.any(Number), ownJob: true } });
    expect(new Set(rows.map((r) => r.result.serial)).size).toBe(3);
  });

  it.each(['SCOPED_ITSELF', 'TRANSIENT'])(
    'runs %s, a request-scoped or transient handler class, on a new instance per job',
    async (type) => {
      const rows = await runThree(type);
      for (const row of rows) expect(row.status).toBe(JobStatus.COMPLETED);
      expect(new Set(rows.map((r) => r.result.serial)).size).toBe(3);
    },
  );
});
