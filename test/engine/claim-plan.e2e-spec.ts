import { Client } from 'pg';
import { JobStatus } from '@conveyor/core';
import { ConveyorDatabase } from '@conveyor/core/storage/connections/conveyor-database.service';
import { WorkerConnection } from '@conveyor/core/storage/connections/worker-connection.service';
import { CLAIM_PLANNER_OPTIONS } from '@conveyor/core/storage/connections/worker-connection.service';
import { quoteLiteral } from '@conveyor/core/storage/connections/quote';
import { ClaimStamp, claimNonce, jobClaimByVersion, jobClaimSkipLocked, jobFinishMany, Statement } from '@conveyor/core/storage/statements';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/**
 * The claim must read the head of the partial claim index and stop, whatever the statistics say. The case
 * that used to go wrong: a burst of inserts into a table analysed while it was small, so PostgreSQL believes
 * few rows are claimable and would rather bitmap-scan and sort every one of them. The worker connection's
 * planner settings (WorkerConnection) rule those plans out; this checks the plans PostgreSQL really makes and
 * keeps on that connection, for the claims and for the outcome writes that share it.
 */
describe('claim plan', () => {
  let schema: TestSchema;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('claimplan');
    t = await createTestApp({ schema: schema.schema, http: false, engine: { runWorkers: false, externalTypes: ['PLAN_TEST'] } });
    await t.sql.query(`ANALYZE ${t.jobsTable}`); // statistics of an empty table
    await t.jobs.enqueueMany(Array.from({ length: 5_000 }, (_, i) => ({ type: 'PLAN_TEST', payload: { i } })));
  });

  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  const filter = { types: ['PLAN_TEST'], excludedQueues: [], onlyQueues: null, limit: 100 };
  /** An HTTP worker's claim: bounded by its payloads' stored size. */
  const bounded = { ...filter, maxPayloadBytes: 64 * 1024 * 1024 };
  /** What a claim by worker 'w' stamps on its rows. */
  const stamp = (): ClaimStamp => ({ workerId: 'w', leaseMs: 30_000, token: claimNonce() });

  /**
   * The plan the worker connection keeps for a statement. Its statements are prepared and planned once per
   * connection (plan_cache_mode = force_generic_plan: PostgreSQL's default re-planned each claim, as a generic
   * plan cannot see the LIMIT), so this is the plan made without the parameters' values: PREPARE, then EXPLAIN
   * EXECUTE, on one connection opened like the worker connection.
   */
  async function keptPlan({ text, values }: Statement): Promise<PlanNode[]> {
    const client = new Client({ ...t.app.get(ConveyorDatabase).clientConfig('plan-test'), options: CLAIM_PLANNER_OPTIONS });
    await client.connect();
    try {
      await client.query(`PREPARE plan_test AS ${text}`);
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) EXECUTE plan_test(${(await Promise.all(values.map((v) => sqlLiteral(client, v)))).join(', ')})`,
      );
      return flatten(rows[0]['QUERY PLAN'][0].Plan);
    } finally {
      await client.end();
    }
  }

  it.each([
    ['skip-locked claim', () => jobClaimSkipLocked(t.app.get(ConveyorDatabase).tables, filter, stamp())],
    ['optimistic claim', () => jobClaimByVersion(t.app.get(ConveyorDatabase).tables, filter, stamp())],
  ])('the %s walks the claim index, with no sort, bitmap or sequential scan', async (_name, statement) => {
    const nodes = await keptPlan(statement());
    expect(nodes.map((n) => n['Node Type'])).not.toEqual(expect.arrayContaining(['Sort']));
    expect(nodes.filter((n) => /Bitmap|Seq Scan/.test(n['Node Type']))).toEqual([]);
    expect(nodes.some((n) => n['Node Type'] === 'Index Scan' && n['Index Name'] === 'conveyor_jobs_claimable')).toBe(true);
  });

  it.each([
    ['skip-locked claim', () => jobClaimSkipLocked(t.app.get(ConveyorDatabase).tables, bounded, stamp())],
    ['optimistic claim', () => jobClaimByVersion(t.app.get(ConveyorDatabase).tables, bounded, stamp())],
  ])(
    "the %s with a payload budget walks the claim index too; its one sort is the budget's, of the rows it locked",
    async (_name, statement) => {
      const nodes = await keptPlan(statement());
      const sorts = nodes.filter((n) => n['Node Type'] === 'Sort');
      const budget = nodes.filter((n) => n['Node Type'] === 'WindowAgg');
      expect(sorts).toHaveLength(1);
      expect(budget.map((n) => n.Plans?.[0])).toEqual(sorts);
      expect(nodes.filter((n) => /Bitmap|Seq Scan/.test(n['Node Type']))).toEqual([]);
      expect(nodes.some((n) => n['Node Type'] === 'Index Scan' && n['Index Name'] === 'conveyor_jobs_claimable')).toBe(true);
    },
  );

  it('the optimistic claim locks and updates the rows it read by tuple id, not through the primary key', async () => {
    const nodes = await keptPlan(jobClaimByVersion(t.app.get(ConveyorDatabase).tables, filter, stamp(), 200));
    expect(nodes.filter((n) => n['Node Type'] === 'Tid Scan')).toHaveLength(2);
    expect(nodes.filter((n) => n['Index Name'] === 'conveyor_jobs_pkey')).toEqual([]);
  });

  it.each([
    ['', () => filter],
    [', with a payload budget too', () => bounded],
  ])(
    'the optimistic claim locks its candidates in the order it read them%s: a nested loop with the candidates outside',
    async (_name, claimFilter) => {
      const nodes = await keptPlan(jobClaimByVersion(t.app.get(ConveyorDatabase).tables, claimFilter(), stamp(), 200));
      const lockRows = nodes.find((n) => n['Node Type'] === 'LockRows');
      const join = lockRows?.Plans?.[0];
      expect(join?.['Node Type']).toBe('Nested Loop');
      expect(join?.Plans?.map((n) => n['Node Type'])).toEqual(['CTE Scan', 'Tid Scan']);
    },
  );

  it('the skip-locked claim updates the rows it locked by tuple id, not through the primary key', async () => {
    const nodes = await keptPlan(jobClaimSkipLocked(t.app.get(ConveyorDatabase).tables, filter, stamp()));
    expect(nodes.filter((n) => n['Node Type'] === 'Tid Scan')).toHaveLength(1);
    expect(nodes.filter((n) => n['Index Name'] === 'conveyor_jobs_pkey')).toEqual([]);
  });

  it.each([
    ['plain completions', (id: string) => ({ id, token: id, status: JobStatus.COMPLETED, result: null })],
    ['other outcomes', (id: string) => ({ id, token: id, status: JobStatus.RETRYING, error: 'boom', delay_ms: 1000 })],
  ])('an outcome write of %s on the worker connection reaches its rows by primary key, with no sequential scan', async (_name, outcome) => {
    const { rows } = await t.sql.query<{ id: string }>(`SELECT id FROM ${t.jobsTable} LIMIT 100`);
    const nodes = await keptPlan(
      jobFinishMany(
        t.app.get(ConveyorDatabase).tables,
        rows.map((r) => outcome(r.id)),
      ),
    );
    expect(nodes.filter((n) => /Bitmap|Seq Scan/.test(n['Node Type']))).toEqual([]);
    expect(nodes.some((n) => n['Node Type'] === 'Index Scan' && n['Index Name'] === 'conveyor_jobs_pkey')).toBe(true);
  });

  it('the worker connection is the only one with those settings', async () => {
    const settings = "SELECT current_setting('enable_sort') AS sort, current_setting('plan_cache_mode') AS plans";
    const worker = await t.app.get(WorkerConnection).runner.query<{ sort: string; plans: string }>(settings);
    const pool = await t.app.get(ConveyorDatabase).pool.query<{ sort: string; plans: string }>(settings);
    expect(worker.rows[0]).toEqual({ sort: 'off', plans: 'force_generic_plan' });
    expect(pool.rows[0]).toEqual({ sort: 'on', plans: 'auto' });
  });
});

/**
 * A statement parameter as an SQL literal (the test's values: null, numbers, plain strings, arrays of plain strings,
 * binary uuid arrays): EXPLAIN EXECUTE is a utility statement and takes no bind parameters.
 */
async function sqlLiteral(client: Client, value: unknown): Promise<string> {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') return String(value);
  // A binary parameter (uuidArray): PostgreSQL reads it and prints it back as text.
  if (Buffer.isBuffer(value)) value = (await client.query<{ text: string }>('SELECT $1::uuid[]::text AS text', [value])).rows[0].text;
  return quoteLiteral(Array.isArray(value) ? `{${value.join(',')}}` : String(value));
}

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}
