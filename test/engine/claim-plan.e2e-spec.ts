import { ClaimConnections, ConveyorDatabase } from '@conveyor/core';
import { jobClaimByVersion, jobClaimSkipLocked } from '../../libs/conveyor/src/sql';
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
 * few rows are claimable and would rather bitmap-scan and sort every one of them. The claim connections'
 * planner settings (ClaimConnections) rule those plans out; this checks the plans PostgreSQL really makes.
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

  it.each([
    ['skip-locked claim', () => jobClaimSkipLocked(t.app.get(ConveyorDatabase).tables, filter, 'w', 30_000)],
    ['optimistic claim', () => jobClaimByVersion(t.app.get(ConveyorDatabase).tables, filter, 'w', 30_000)],
  ])('the %s walks the claim index, with no sort, bitmap or sequential scan', async (_name, statement) => {
    const { text, values } = statement();
    const { rows } = await t.app.get(ClaimConnections).runner.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
    const nodes = flatten(rows[0]['QUERY PLAN'][0].Plan);
    expect(nodes.map((n) => n['Node Type'])).not.toEqual(expect.arrayContaining(['Sort']));
    expect(nodes.filter((n) => /Bitmap|Seq Scan/.test(n['Node Type']))).toEqual([]);
    expect(nodes.some((n) => n['Node Type'] === 'Index Scan' && n['Index Name'] === 'conveyor_jobs_claimable')).toBe(true);
  });

  it('the optimistic claim locks and updates the rows it read by tuple id, not through the primary key', async () => {
    const { text, values } = jobClaimByVersion(t.app.get(ConveyorDatabase).tables, filter, 'w', 30_000, 200);
    const { rows } = await t.app.get(ClaimConnections).runner.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
    const nodes = flatten(rows[0]['QUERY PLAN'][0].Plan);
    expect(nodes.filter((n) => n['Node Type'] === 'Tid Scan')).toHaveLength(2);
    expect(nodes.filter((n) => n['Index Name'] === 'conveyor_jobs_pkey')).toEqual([]);
  });

  it('the claim connections are the only ones with those settings', async () => {
    const claims = await t.app.get(ClaimConnections).runner.query<{ enable_sort: string }>('SHOW enable_sort');
    const pool = await t.app.get(ConveyorDatabase).pool.query<{ enable_sort: string }>('SHOW enable_sort');
    expect([claims.rows[0].enable_sort, pool.rows[0].enable_sort]).toEqual(['off', 'on']);
  });
});

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}
