import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { SharedInsertService } from '@conveyor/core/submission/shared-insert.service';
import { installInsertProbe, InsertProbe } from '../support/insert-probe';
import { waitFor } from '../support/wait-for';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/**
 * Concurrent `POST /jobs` requests share insert statements and their commits: while one statement is in flight,
 * the requests that arrive wait and then go together. Rows inserted by one statement share its transaction id
 * (`xmin`), which is how these tests see the sharing. To make a group deterministic, a test holds one request's
 * statement at a gate (test/support/insert-probe.ts), sends the group, waits until all of it is queued behind,
 * and opens the probe. Each request is still answered as it would be alone.
 */
describe('POST /jobs: concurrent submissions share statements', () => {
  let t: RestTestApp;
  let probe: InsertProbe;

  beforeAll(async () => {
    t = await createRestTestApp('http_shared', { engine: { runWorkers: false } });
    probe = await installInsertProbe(t.sql, t.schema.schema);
  });

  afterAll(async () => {
    await probe?.open();
    await t?.close();
  });

  const post = (body: unknown): Promise<Response> =>
    t
      .api()
      .post('/jobs')
      .send(body as object)
      .then((res) => res);

  /** Transaction ids of the stored jobs `ids`, one per job. */
  const xminsOf = async (ids: string[]): Promise<string[]> =>
    (await t.sql.query<{ x: string }>(`SELECT xmin::text AS x FROM ${t.jobsTable} WHERE id = ANY($1::uuid[])`, [ids])).rows.map((r) => r.x);

  /**
   * Sends `bodies` while a lone request's statement is held in flight, waits until every one of them is queued
   * behind it (validation has answered those it refuses), then lets them go: the valid ones form one group. Requests
   * with keys have a lane of their own (SharedInsertService): when there are any, a keyed lead holds that lane too.
   */
  async function asOneGroup(bodies: unknown[], refused = 0): Promise<Response[]> {
    await probe.close();
    try {
      const keyed = bodies.some((b) => typeof b === 'object' && b !== null && ('idempotencyKey' in b || 'uniqueKey' in b));
      const leads = [post({ type: 'TEST_RECORD', payload: probe.gateRow })];
      if (keyed) leads.push(post({ type: 'TEST_RECORD', payload: probe.gateRow, uniqueKey: `lead-${randomUUID()}` }));
      await probe.waitingStatement(leads.length);
      const answers = bodies.map(post);
      const shared = t.app.get(SharedInsertService);
      await waitFor(() => shared.waiting === bodies.length - refused, { message: `${bodies.length - refused} submissions to queue` });
      await probe.open();
      expect((await Promise.all(leads)).map((r) => r.status)).toEqual(leads.map(() => 201));
      return await Promise.all(answers);
    } finally {
      await probe.open();
    }
  }

  it('200 requests at once: each answered with its own new job, the table holds exactly those, inserted by one statement', async () => {
    const run = randomUUID();
    const answers = await asOneGroup(Array.from({ length: 200 }, (_, i) => ({ type: 'TEST_RECORD', payload: { run, i } })));
    expect(answers.map((r) => r.status)).toEqual(Array(200).fill(201));
    // Each request its own job: the one carrying its payload.
    expect(answers.map((r) => r.body.payload)).toEqual(answers.map((_, i) => ({ run, i })));
    const ids = answers.map((r) => r.body.id as string);
    expect(new Set(ids).size).toBe(200);
    const stored = await t.rows(`payload->>'run' = $1`, [run]);
    expect(stored.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const res of answers) expect(stored.find((r) => r.id === res.body.id)?.payload).toEqual(res.body.payload);
    expect(new Set(await xminsOf(ids)).size).toBe(1);
  });

  it('200 requests at once without a gate: every one answered with its own job, fewer statements than requests', async () => {
    const run = randomUUID();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => post({ type: 'TEST_RECORD', payload: { run, i } })));
    expect(answers.map((r) => r.status)).toEqual(Array(200).fill(201));
    const ids = answers.map((r) => r.body.id as string);
    expect(new Set(ids).size).toBe(200);
    expect((await t.rows(`payload->>'run' = $1`, [run])).map((r) => r.id).sort()).toEqual([...ids].sort());
    // While one statement is in flight the next requests queue: at least two shared one.
    expect(new Set(await xminsOf(ids)).size).toBeLessThan(200);
  });

  it('a lone request is inserted by a statement of its own', async () => {
    const res = await post({ type: 'TEST_RECORD', payload: { lone: true } });
    expect(res.status).toBe(201);
    const [xmin] = await xminsOf([res.body.id]);
    const { rows } = await t.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.jobsTable} WHERE xmin::text = $1`, [xmin]);
    expect(rows[0].n).toBe(1);
  });

  it('a repeated idempotency key in one group: 201 once, 200 with the same job for the repeats, 409 for another request under it', async () => {
    const key = `shared-${randomUUID()}`;
    const body = { type: 'TEST_MAIL', payload: { to: 'ada@example.com', subject: 'Hi' }, idempotencyKey: key };
    const other = { ...body, payload: { to: 'ada@example.com', subject: 'Another' } };
    const neighbour = { type: 'TEST_RECORD', payload: { neighbour: key } };
    const [first, again, different, near, third] = await asOneGroup([body, body, other, neighbour, body]);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(third.status).toBe(200);
    expect(third.body).toEqual(first.body);
    expectErrorBody(different, 409);
    expect(different.body.message).toContain(key);
    expect(near.status).toBe(201);
    expect(await t.rows('idempotency_key = $1', [key])).toHaveLength(1);

    // Across groups: a later group answers the key with the same job too.
    const [later, laterOther] = await asOneGroup([body, other]);
    expect(later.status).toBe(200);
    expect(later.body).toEqual(first.body);
    expectErrorBody(laterOther, 409);
  });

  it('a unique key in one group: the first request creates the job, the others are answered with it (200), neighbours unharmed', async () => {
    const key = `u-${randomUUID()}`;
    const held = `held-${randomUUID()}`;
    const holder = await post({ type: 'TEST_RECORD', payload: { n: 0 }, uniqueKey: held });
    expect(holder.status).toBe(201);
    const answers = await asOneGroup([
      { type: 'TEST_RECORD', payload: { n: 1 }, uniqueKey: key },
      { type: 'TEST_RECORD', payload: { n: 2 }, uniqueKey: key },
      { type: 'TEST_RECORD', payload: { n: 3 }, uniqueKey: held },
      { type: 'TEST_RECORD', payload: { n: 4 } },
    ]);
    expect(answers.map((r) => r.status)).toEqual([201, 200, 200, 201]);
    expect(answers[1].body).toEqual(answers[0].body);
    expect(answers[2].body).toEqual(holder.body);
    expect(await t.rows('unique_key = $1', [key])).toHaveLength(1);
    expect(await t.rows('unique_key = $1', [held])).toHaveLength(1);
  });

  it('a row PostgreSQL refuses fails only its own request, with the answer it gets alone; its neighbours are stored', async () => {
    const run = randomUUID();
    const alone = await post({ type: 'TEST_RECORD', payload: probe.poisonRow });
    expectErrorBody(alone, 500);
    const bodies = Array.from({ length: 20 }, (_, i) => ({
      type: 'TEST_RECORD',
      payload: i === 7 ? { ...probe.poisonRow, run } : { run, i },
    }));
    // Keyed neighbours too: the keyed statement of the group is split the same way.
    bodies.push({ type: 'TEST_RECORD', payload: { run, keyed: true }, idempotencyKey: `k-${run}` } as never);
    bodies.push({ type: 'TEST_RECORD', payload: { ...probe.poisonRow, run, keyed: true }, uniqueKey: `u-${run}` } as never);
    const answers = await asOneGroup(bodies);
    expect(answers.map((r) => r.status)).toEqual([...Array(7).fill(201), 500, ...Array(12).fill(201), 201, 500]);
    expect(answers[7].body).toEqual(alone.body);
    expect(answers[21].body).toEqual(alone.body);
    const stored = await t.rows(`payload->>'run' = $1`, [run]);
    expect(stored.map((r) => r.id).sort()).toEqual(
      answers
        .filter((r) => r.status === 201)
        .map((r) => r.body.id as string)
        .sort(),
    );
  });

  it('validation answers each request before any statement: a 400 in a group fails only itself', async () => {
    const run = randomUUID();
    const answers = await asOneGroup(
      [
        { type: 'TEST_RECORD', payload: { run, i: 0 } },
        { type: 'NO_SUCH_TYPE', payload: {} },
        { type: 'TEST_RECORD', payload: { run, i: 2 }, priority: 'high' },
        { type: 'TEST_RECORD', payload: { run, i: 3 } },
      ],
      2,
    );
    expect(answers[0].status).toBe(201);
    expectErrorBody(answers[1], 400, ['type']);
    expectErrorBody(answers[2], 400, ['priority']);
    expect(answers[3].status).toBe(201);
    expect(await t.rows(`payload->>'run' = $1`, [run])).toHaveLength(2);
  });
});
