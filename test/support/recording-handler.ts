import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { CancelJobError, Job, JobContext, JobHandler, JobHandlerHost, PermanentJobError, RetryLaterError } from '@conveyor/core';

/** Payload of the test handler: what the attempt should do. */
export interface RecordPayload {
  /** Sleep this long (honouring the abort signal unless `ignoreSignal`). */
  sleepMs?: number;
  /** Fail the first N attempts with an ordinary error. */
  failTimes?: number;
  /** Always fail. */
  alwaysFail?: boolean;
  /** Block the event loop this long, synchronously (a handler stuck on CPU work). */
  busyWaitMs?: number;
  /** Never settle (a hung handler). */
  hang?: boolean;
  ignoreSignal?: boolean;
  permanent?: boolean;
  /** Throw CancelJobError. */
  cancel?: boolean;
  /** Ask to retry later after this many ms, on the first N attempts. */
  snoozeMs?: number;
  snoozeTimes?: number;
  result?: unknown;
  /** Return a string of this many characters. */
  resultChars?: number;
  /** End the whole process this many ms into the attempt, the way a fatal handler bug does. */
  crash?: { how: ProcessCrash; afterMs?: number };
}

/** Ways a handler takes its process down. */
export type ProcessCrash = 'exit' | 'uncaught' | 'unhandled-rejection' | 'abort' | 'out-of-memory';

/** DI token of the pg pool the recorder writes invocations with. */
export const RECORDER_POOL = Symbol('RECORDER_POOL');

/** Table every invocation is written to, so tests count executions in the database. */
export function invocationsTable(schema: string): string {
  return `"${schema}".test_invocations`;
}

export function createInvocationsTableSql(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${invocationsTable(schema)} (
    job_id uuid NOT NULL, worker text NOT NULL, attempt int NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`;
}

/**
 * A handler for engine tests: records each invocation (job, worker, attempt) in the database before
 * doing what its payload asks — sleep, fail, hang, snooze, give up.
 */
@Injectable()
@JobHandler('TEST_RECORD', { maxAttempts: 3, backoff: { baseMs: 50, factor: 2, maxMs: 1000, jitter: 0 } })
export class RecordingHandler extends JobHandlerHost<RecordPayload> {
  constructor(@Inject(RECORDER_POOL) private readonly pool: { pool: Pool; schema: string }) {
    super();
  }

  async handle(job: Job<RecordPayload>, ctx: JobContext): Promise<unknown> {
    await this.pool.pool.query(`INSERT INTO ${invocationsTable(this.pool.schema)} (job_id, worker, attempt) VALUES ($1, $2, $3)`, [
      job.id,
      ctx.workerId,
      ctx.attempt,
    ]);
    const p = job.payload ?? {};
    if (p.snoozeMs !== undefined && job.snoozes < (p.snoozeTimes ?? 1)) throw new RetryLaterError(p.snoozeMs, 'busy');
    if (p.crash) crashProcessSoon(p.crash.how, p.crash.afterMs ?? 0);
    if (p.hang) return new Promise(() => undefined);
    if (p.busyWaitMs) busyWait(p.busyWaitMs);
    if (p.sleepMs) await sleep(p.sleepMs, p.ignoreSignal ? undefined : ctx.signal);
    if (p.permanent) throw new PermanentJobError('this will never work');
    if (p.cancel) throw new CancelJobError('no longer wanted');
    if (p.alwaysFail || (p.failTimes !== undefined && ctx.attempt <= p.failTimes)) throw new Error(`attempt ${ctx.attempt} failed`);
    if (p.resultChars !== undefined) return 'x'.repeat(p.resultChars);
    return p.result ?? { ok: true, attempt: ctx.attempt };
  }
}

function crashProcessSoon(how: ProcessCrash, afterMs: number): void {
  setTimeout(() => {
    switch (how) {
      case 'exit':
        return process.exit(1);
      case 'abort':
        return process.abort();
      case 'out-of-memory':
        return allocateForever();
      case 'unhandled-rejection':
        void Promise.reject(new Error('a promise nobody awaited rejected'));
        return;
      case 'uncaught':
        throw new Error('thrown from a timer callback');
    }
  }, afterMs);
}

/** Keeps every allocation reachable until V8 gives up on the heap and ends the process. */
function allocateForever(): never {
  const hoard: string[][] = [];
  for (;;) hoard.push(new Array<string>(1_000_000).fill('x'));
}

function busyWait(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spin: nothing else runs in this process meanwhile
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}
