import { ConveyorClient } from '@conveyor/client';
import { Job } from '@conveyor/core';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/** `GET /jobs` search: payload containment, creation time range, type whatever the case; with the cursor. */
describe('GET /jobs search', () => {
  let t: RestTestApp;
  const ids = (res: { body: { items: Job[] } }) => res.body.items.map((j) => j.id);
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
  let jobs: Job[];

  beforeAll(async () => {
    t = await createRestTestApp('http_job_search', { engine: { runWorkers: false } });
    const submit = async (body: Record<string, unknown>) => (await t.api().post('/jobs').send(body).expect(201)).body as Job;
    jobs = [];
    for (let i = 0; i < 6; i++) {
      jobs.push(
        await submit({ type: 'TEST_RECORD', payload: { result: { customer: i % 2 === 0 ? 'acme' : 'globex', n: i } }, runAt: inAnHour() }),
      );
    }
    // Creation times an hour apart, oldest first, so a range can pick some of them.
    for (const [i, j] of jobs.entries()) {
      await t.sql.query(`UPDATE ${t.jobsTable} SET created_at = $2 WHERE id = $1`, [j.id, new Date(Date.UTC(2026, 0, 1, i))]);
    }
  });

  afterAll(async () => t?.close());

  it('payload containment: nested objects match, newest first, and the cursor pages through the same filter', async () => {
    const payload = JSON.stringify({ result: { customer: 'acme' } });
    const first = await t.api().get('/jobs').query({ payload, limit: 2 }).expect(200);
    expect(ids(first)).toEqual([jobs[4].id, jobs[2].id]);
    const second = await t.api().get('/jobs').query({ payload, limit: 2, cursor: first.body.nextCursor }).expect(200);
    expect(ids(second)).toEqual([jobs[0].id]);
    expect(second.body.nextCursor).toBeNull();
    const none = await t
      .api()
      .get('/jobs')
      .query({ payload: JSON.stringify({ result: { customer: 'initech' } }) })
      .expect(200);
    expect(ids(none)).toEqual([]);
  });

  it('creation range: from and to inclusive, combined with the payload filter', async () => {
    const res = await t.api().get('/jobs').query({ createdFrom: '2026-01-01T01:00:00Z', createdTo: '2026-01-01T04:00:00Z' }).expect(200);
    expect(ids(res)).toEqual([jobs[4].id, jobs[3].id, jobs[2].id, jobs[1].id]);
    const offset = await t.api().get('/jobs').query({ createdFrom: '2026-01-01T04:00:00+02:00' }).expect(200);
    expect(ids(offset)).toEqual(
      jobs
        .slice(2)
        .map((j) => j.id)
        .reverse(),
    );
    const both = await t
      .api()
      .get('/jobs')
      .query({ createdTo: '2026-01-01T03:00:00Z', payload: '{"result":{"customer":"globex"}}' })
      .expect(200);
    expect(ids(both)).toEqual([jobs[3].id, jobs[1].id]);
  });

  it('type matches whatever the case', async () => {
    const res = await t.api().get('/jobs').query({ type: 'test_record', limit: 100 }).expect(200);
    expect(res.body.items).toHaveLength(6);
    expect(ids(await t.api().get('/jobs').query({ type: 'TEST_REC' }).expect(200))).toEqual([]);
  });

  it('the client sends the payload as JSON and dates as ISO', async () => {
    const client = new ConveyorClient({ baseUrl: t.baseUrl });
    const page = await client.list({
      payload: { result: { customer: 'globex' } },
      createdFrom: new Date(Date.UTC(2026, 0, 1, 2)),
      type: 'Test_Record',
    });
    expect(page.items.map((j) => j.id)).toEqual([jobs[5].id, jobs[3].id]);
  });

  it('400 naming the field for bad input', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ payload: '{nope' }, 'payload'],
      [{ payload: '[1,2]' }, 'payload'],
      [{ payload: '"text"' }, 'payload'],
      [{ payload: '{"customer":"\\u0000"}' }, 'payload'],
      [{ payload: '{"customer":"\\ud800"}' }, 'payload'],
      [{ createdFrom: 'yesterday' }, 'createdFrom'],
      [{ createdFrom: '2026-02-30T00:00:00Z' }, 'createdFrom'],
      [{ createdTo: '2026-01-01T10:00:00' }, 'createdTo'],
      [{ createdFrom: '2026-01-02T00:00:00Z', createdTo: '2026-01-01T00:00:00Z' }, 'createdTo'],
    ];
    for (const [query, field] of cases) {
      const res = await t.api().get('/jobs').query(query);
      expect([JSON.stringify(query), expectErrorBody(res, 400)]).toEqual([JSON.stringify(query), [field]]);
    }
  });
});
