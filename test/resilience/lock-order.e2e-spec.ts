import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { JobErrorKind, JobStatus } from '@conveyor/core';
import { CLAIM_PLANNER_OPTIONS } from '@conveyor/core/storage/connections/worker-connection.service';
import {
  FinishAnswer,
  FinishRow,
  jobExtendLeases,
  jobFinishMany,
  SqlTables,
  Statement,
  writtenAt,
} from '@conveyor/core/storage/statements';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

/** Rows every statement of a round touches. */
const ROWS = 200;
const ROUNDS = 40;
const LEASE_MS = 60_000;
/** PostgreSQL's error code for a transaction it aborted to break a deadlock. */
const DEADLOCK_DETECTED = '40P01';

/**
 * Planner settings that each give the same statement a different plan, and so a different order in which a
 * plain UPDATE would lock its rows. Which plan production gets depends on the table's size and statistics, so
 * the lock order must not depend on the plan.
 */
const PLANS = {
  /** The shared pool's defaults (heartbeats run there). */
  pool: '',
  /** The worker connection's (outcome writes run there): the primary key, in id order. */
  worker: CLAIM_PLANNER_OPTIONS,
  /** Sequential or bitmap scans: the order rows lie in the table. */
  heap: '-c enable_indexscan=off -c enable_indexonlyscan=off',
  /** A nested loop driven by the list: the order the ids were given in. */
  list: '-c enable_hashjoin=off -c enable_mergejoin=off',
} as const;

/**
 * Every statement that locks several job rows and may wait for them (outcome writes, the operator's bulk actions)
 * takes its locks in one order, id order, so no two of them can wait for each other in a cycle; the heartbeat round
 * skips rows another transaction holds, so it waits for none. The case that deadlocked: an instance's heartbeat (on
 * the pool) and its outcome batch (on the worker connection) over the same jobs, each locking them in the order its
 * plan happened to visit them.
 *
 * Each round makes the same rows RUNNING under one lease token, then sends at once, each from its own
 * connection and with the ids in its own order: three heartbeats and two outcome writes (plain completions and
 * retries), every one of them over every row. Of the two outcomes of a row the first to lock it is written and the
 * other finds it no longer RUNNING. The rows' ids are random, so the order they lie in the table is unrelated to id
 * order, as in a table that has seen many updates.
 */
describe('lock order of heartbeats and outcome writes', () => {
  let schema: TestSchema;
  let t: TestApp;
  let tables: SqlTables;
  const clients: Client[] = [];
  let ids: string[];

  /** A connection of its own with one of the PLANS. */
  async function connect(plan: keyof typeof PLANS): Promise<Client> {
    const client = new Client({ ...t.db.clientConfig(`lock-order-${plan}`), options: PLANS[plan] || undefined });
    await client.connect();
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    schema = await createTestSchema('lockorder');
    t = await createTestApp({ schema: schema.schema, http: false, engine: { runWorkers: false } });
    tables = t.db.tables;
    ids = Array.from({ length: ROWS }, () => randomUUID());
    await t.sql.query(`INSERT INTO ${t.jobsTable} (id, type) SELECT unnest($1::uuid[]), 'LOCK_ORDER'`, [ids]);
    await t.sql.query(`ANALYZE ${t.jobsTable}`);
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await t?.close();
    await schema?.drop();
  });

  it(`${ROUNDS} rounds of concurrent heartbeats and outcome writes over the same rows, in different orders, deadlock none`, async () => {
    const [beatPool, beatHeap, beatList, completeWorker, retryList] = await Promise.all([
      connect('pool'),
      connect('heap'),
      connect('list'),
      connect('worker'),
      connect('list'),
    ]);
    // Counted from the errors: PostgreSQL breaks each cycle by aborting one of its statements with 40P01.
    // (pg_stat_database.deadlocks would also count other test files' deadlocks in the shared database.)
    const deadlocks: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const token = randomUUID();
      await t.sql.query(
        `UPDATE ${t.jobsTable} SET status = 'RUNNING', lease_token = $1, locked_by = 'lock-order',
           locked_until = now() + interval '1 hour', result = NULL, last_error = NULL, finished_at = NULL
         WHERE id = ANY($2::uuid[])`,
        [token, ids],
      );
      const held = (list: string[]) => list.map((id) => ({ id, token }));
      const attempt = <R>(what: string, client: Client, stmt: Statement) =>
        send<R>(client, stmt).catch((err: { code?: string; message: string }) => {
          if (err.code !== DEADLOCK_DETECTED) throw err;
          deadlocks.push(`round ${round}, ${what}: ${err.message}`);
          return null;
        });
      const completions = shuffled(ids).map((id) => completionOf(id, token));
      const retries = [...ids].reverse().map((id) => retryOf(id, token));
      const [, , , completeAnswer, retryAnswer] = await Promise.all([
        attempt('heartbeat (pool plan, shuffled)', beatPool, jobExtendLeases(tables, held(shuffled(ids)), LEASE_MS)),
        attempt('heartbeat (heap-order plan, reversed)', beatHeap, jobExtendLeases(tables, held([...ids].reverse()), LEASE_MS)),
        attempt('heartbeat (list-order plan, shuffled)', beatList, jobExtendLeases(tables, held(shuffled(ids)), LEASE_MS)),
        attempt<FinishAnswer>('plain completions (worker plan)', completeWorker, jobFinishMany(tables, completions)),
        attempt<FinishAnswer>('retries (list-order plan, reversed)', retryList, jobFinishMany(tables, retries)),
      ]);
      if (deadlocks.length > 0) break;

      // Heartbeats never take a job from its holder, so every row got one of its two outcomes, and only one.
      const writtenBy = (answer: { rows: FinishAnswer[] } | null, outcomes: FinishRow[]) => {
        const written = writtenAt(answer!.rows[0]);
        return new Set(outcomes.filter((_, i) => written(i)).map((o) => o.id));
      };
      const completed = writtenBy(completeAnswer, completions);
      const retried = writtenBy(retryAnswer, retries);
      expect(completed.size + retried.size).toBe(ROWS);
      const { rows } = await t.sql.query<{
        id: string;
        status: string;
        result: unknown;
        last_error: string | null;
        lease_token: string | null;
      }>(`SELECT id, status, result, last_error, lease_token FROM ${t.jobsTable} WHERE id = ANY($1::uuid[])`, [ids]);
      for (const row of rows) {
        if (completed.has(row.id)) expect(row).toMatchObject({ status: JobStatus.COMPLETED, result: { id: row.id }, lease_token: null });
        else {
          expect(retried.has(row.id)).toBe(true);
          expect(row).toMatchObject({ status: JobStatus.RETRYING, last_error: `retry ${row.id}`, lease_token: null });
        }
      }
    }
    expect(deadlocks).toEqual([]);
  });
});

/** Sends a statement as the engine does: prepared under its name, so a worker-planned one keeps a generic plan. */
function send<R>(client: Client, { name, text, values }: Statement): Promise<{ rows: R[] }> {
  return client.query({ name, text, values }) as unknown as Promise<{ rows: R[] }>;
}

function completionOf(id: string, token: string): FinishRow {
  return { id, token, status: JobStatus.COMPLETED, result: { id } };
}

function retryOf(id: string, token: string): FinishRow {
  return {
    id,
    token,
    status: JobStatus.RETRYING,
    error: `retry ${id}`,
    entry: { attempt: 1, at: new Date().toISOString(), kind: JobErrorKind.FAILED, error: `retry ${id}` },
    delay_ms: 1000,
  };
}

/** A copy in random order. */
function shuffled<T>(list: T[]): T[] {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}
