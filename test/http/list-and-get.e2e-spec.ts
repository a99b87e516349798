import { randomBytes } from 'node:crypto';
import { JobStatus } from '@conveyor/core';
import { jobList } from '@conveyor/core/storage/statements';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

interface ListedJob {
  id: string;
  seq: string;
  type: string;
  queue: string;
  status: JobStatus;
}

interface Page {
  items: ListedJob[];
  nextCursor: string | null;
}

/** `GET /jobs/:id` and `GET /jobs`: one job, and newest-first keyset pages with filters. */
describe('GET /jobs and GET /jobs/:id', () => {
  let t: RestTestApp;
  /** Ids of the 25 jobs in queue `pages`, oldest first. */
  let pageIds: string[];

  const list = async (query: Record<string, string | number>) => (await t.api().get('/jobs').query(query).expect(200)).body as Page;

  /** Follows nextCursor until the end; returns every page. */
  const allPages = async (query: Record<string, string | number>): Promise<Page[]> => {
    const pages: Page[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await list(cursor ? { ...query, cursor } : query);
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor && pages.length < 100);
    return pages;
  };

  beforeAll(async () => {
    t = await createRestTestApp('http_list', { engine: { runWorkers: false } });
    pageIds = [];
    // One at a time, so creation order is unambiguous; mixed types for the type filter.
    for (let i = 0; i < 25; i++) {
      const job =
        i % 5 === 0
          ? { type: 'TEST_MAIL', payload: { to: `u${i}@example.com`, subject: `#${i}` } }
          : { type: 'TEST_RECORD', payload: { i } };
      const res = await t
        .api()
        .post('/jobs')
        .send({ ...job, queue: 'pages', idempotencyKey: `page-${String(i).padStart(2, '0')}` })
        .expect(201);
      pageIds.push(res.body.id);
    }
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('GET /jobs/:id', () => {
    it('200 with the job as the submission answered it', async () => {
      const created = await t
        .api()
        .post('/jobs')
        .send({ type: 'TEST_RECORD', payload: { get: 1 }, queue: 'single' })
        .expect(201);
      const res = await t.api().get(`/jobs/${created.body.id}`).expect(200);
      expect(res.body).toEqual(created.body);
      // Upper-case UUIDs are the same id.
      expect((await t.api().get(`/jobs/${created.body.id.toUpperCase()}`).expect(200)).body.id).toBe(created.body.id);
    });

    it('reflects the stored state, not a cached one', async () => {
      const created = await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {}, queue: 'single' }).expect(201);
      await t.sql.query(`UPDATE ${t.jobsTable} SET status = 'DEAD', last_error = 'boom' WHERE id = $1`, [created.body.id]);
      expect((await t.api().get(`/jobs/${created.body.id}`).expect(200)).body).toMatchObject({ status: JobStatus.DEAD, lastError: 'boom' });
    });

    it('404 for an id that does not exist', async () => {
      const res = await t.api().get('/jobs/00000000-0000-4000-8000-000000000000');
      expectErrorBody(res, 404);
      expect(res.body.message).toContain('00000000-0000-4000-8000-000000000000');
    });

    it.each(['not-a-uuid', '123', '00000000-0000-4000-8000-00000000000g', '00000000000040008000000000000000'])(
      '400 naming id for %s',
      async (id) => {
        expectErrorBody(await t.api().get(`/jobs/${id}`), 400, ['id']);
      },
    );
  });

  describe('a RUNNING job answers without its lease token', () => {
    /** A job held by some worker under a lease token, as a claim leaves it. */
    const running = async (request: Record<string, unknown>) => {
      const created = await t.api().post('/jobs').send(request).expect(201);
      const { rows } = await t.sql.query<{ lease_token: string }>(
        `UPDATE ${t.jobsTable} SET status = 'RUNNING', attempts = 1, locked_by = 'other-worker', locked_until = now() + interval '1 hour',
           lease_token = gen_random_uuid(), started_at = now() WHERE id = $1 RETURNING lease_token`,
        [created.body.id],
      );
      return { id: created.body.id as string, token: rows[0].lease_token };
    };
    /** The job's fields carry no token: not under its name, and not its value anywhere in the answer. */
    const expectNoToken = (res: { text: string }, job: object, token: string) => {
      expect(Object.keys(job)).not.toContain('leaseToken');
      expect(res.text).not.toContain(token);
    };

    it('from GET /jobs/:id and GET /jobs', async () => {
      const { id, token } = await running({ type: 'TEST_RECORD', payload: { held: 1 }, queue: 'held' });
      const one = await t.api().get(`/jobs/${id}`).expect(200);
      expect(one.body).toMatchObject({ id, status: JobStatus.RUNNING, lockedBy: 'other-worker' });
      expectNoToken(one, one.body, token);

      const page = await t.api().get('/jobs').query({ queue: 'held', status: 'RUNNING' }).expect(200);
      expect(page.body.items.map((j: ListedJob) => j.id)).toEqual([id]);
      for (const item of page.body.items) expectNoToken(page, item, token);
    });

    it('from a submission answered with it: a repeated idempotency key, alone or in a batch, and a held unique key', async () => {
      const request = { type: 'TEST_RECORD', payload: { held: 2 }, queue: 'held', idempotencyKey: 'held-idem' };
      const { id, token } = await running(request);
      const again = await t.api().post('/jobs').send(request).expect(200);
      expect(again.body).toMatchObject({ id, status: JobStatus.RUNNING });
      expectNoToken(again, again.body, token);
      const batch = await t
        .api()
        .post('/jobs/batch')
        .send({ jobs: [request] })
        .expect(201);
      expect(batch.body.jobs.map((j: ListedJob) => j.id)).toEqual([id]);
      expectNoToken(batch, batch.body.jobs[0], token);

      const unique = await running({ type: 'TEST_RECORD', payload: { held: 3 }, queue: 'held', uniqueKey: 'held-unique' });
      const holder = await t
        .api()
        .post('/jobs')
        .send({ type: 'TEST_RECORD', payload: { held: 4 }, uniqueKey: 'held-unique' })
        .expect(200);
      expect(holder.body).toMatchObject({ id: unique.id, status: JobStatus.RUNNING });
      expectNoToken(holder, holder.body, unique.token);
    });

    it('nor do the answers of submit, cancel and retry name the field', async () => {
      const created = await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {}, queue: 'held' }).expect(201);
      expect(Object.keys(created.body)).not.toContain('leaseToken');
      const cancelled = await t.api().post(`/jobs/${created.body.id}/cancel`).expect(200);
      expect(Object.keys(cancelled.body)).not.toContain('leaseToken');
      const retried = await t.api().post(`/jobs/${created.body.id}/retry`).expect(200);
      expect(Object.keys(retried.body)).not.toContain('leaseToken');
    });
  });

  describe('GET /jobs', () => {
    it('pages through 25 jobs ten at a time: every job exactly once, newest first', async () => {
      const pages = await allPages({ queue: 'pages', limit: 10 });
      expect(pages.map((p) => p.items.length)).toEqual([10, 10, 5]);
      expect(pages.map((p) => p.nextCursor === null)).toEqual([false, false, true]);
      const seen = pages.flatMap((p) => p.items);
      expect(seen.map((j) => j.id)).toEqual([...pageIds].reverse());
      const seqs = seen.map((j) => BigInt(j.seq));
      expect(seqs.every((s, i) => i === 0 || s < seqs[i - 1])).toBe(true);
    });

    it('reads a page through the primary key, newest first, without a sort (no index just for paging)', async () => {
      const stmt = jobList(t.db.tables, { queue: 'pages', beforeId: pageIds[20], limit: 10 });
      const client = await t.sql.connect();
      try {
        // The test table is tiny, so the planner would rightly prefer a scan and a sort; make both
        // expensive to see whether an index serves the query's order.
        await client.query('SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off');
        const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${stmt.text}`, stmt.values)).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
        expect(plan).toMatch(/Index Scan Backward using conveyor_jobs_pkey/);
        expect(plan).not.toContain('Sort');
        const indexes = await client.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE schemaname = $1', [
          t.schema.schema,
        ]);
        expect(indexes.rows.map((r) => r.indexname)).not.toContain('conveyor_jobs_seq');
      } finally {
        await client.query('RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_sort').catch(() => undefined);
        client.release();
      }
    });

    it('stays stable while new jobs arrive between pages', async () => {
      const first = await list({ queue: 'pages', limit: 10 });
      await t
        .api()
        .post('/jobs')
        .send({ type: 'TEST_RECORD', payload: { late: true }, queue: 'pages' })
        .expect(201);
      const rest = await allPages({ queue: 'pages', limit: 10, cursor: first.nextCursor! });
      const ids = [...first.items, ...rest.flatMap((p) => p.items)].map((j) => j.id);
      expect(ids).toEqual([...pageIds].reverse());
      await t.sql.query(`DELETE FROM ${t.jobsTable} WHERE payload @> '{"late": true}'`);
    });

    it('filters by type, by status and by queue, alone and together, across pages', async () => {
      const mails = (await allPages({ queue: 'pages', type: 'TEST_MAIL', limit: 2 })).flatMap((p) => p.items);
      expect(mails.map((j) => j.id)).toEqual(pageIds.filter((_, i) => i % 5 === 0).reverse());

      const cancelled = [pageIds[3], pageIds[10], pageIds[17]];
      for (const id of cancelled) await t.api().post(`/jobs/${id}/cancel`).expect(200);
      const byStatus = (await allPages({ status: 'CANCELLED', limit: 2 })).flatMap((p) => p.items);
      expect(byStatus.map((j) => j.id)).toEqual([...cancelled].reverse());
      expect(byStatus.every((j) => j.status === JobStatus.CANCELLED)).toBe(true);

      const mailCancelled = await list({ status: 'CANCELLED', type: 'TEST_MAIL', queue: 'pages' });
      expect(mailCancelled.items.map((j) => j.id)).toEqual([pageIds[10]]);
      expect((await list({ status: 'PENDING', queue: 'pages' })).items).toHaveLength(22);

      expect(await list({ queue: 'no-such-queue' })).toEqual({ items: [], nextCursor: null });
      // The API agrees with the table.
      const { rows } = await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable} WHERE queue = 'pages' AND status = 'PENDING'`);
      expect(rows[0].n).toBe(22);
    });

    it('filters by text within the idempotency key, taking % and _ literally', async () => {
      expect((await list({ key: 'page-1' })).items.map((j) => j.id)).toEqual(pageIds.slice(10, 20).reverse());
      expect((await list({ key: 'page-%' })).items).toEqual([]);
      expect((await list({ key: 'page_0' })).items).toEqual([]);
    });

    it('reads a limit of decimal digits, leading zeros included', async () => {
      expect((await list({ queue: 'pages', limit: '016' })).items).toHaveLength(16);
    });

    it('defaults to 50 per page', async () => {
      for (let i = 0; i < 30; i++) await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {}, queue: 'many' }).expect(201);
      const page = await list({});
      expect(page.items).toHaveLength(50);
      expect(page.nextCursor).not.toBeNull();
    });

    const bad: Array<[string, Record<string, string>, string[]]> = [
      ['an unknown status', { status: 'FINISHED' }, ['status']],
      ['a lower-case status', { status: 'pending' }, ['status']],
      ['limit 0', { limit: '0' }, ['limit']],
      ['limit above 500', { limit: '501' }, ['limit']],
      ['a limit that is not a number', { limit: 'ten' }, ['limit']],
      ['a fractional limit', { limit: '2.5' }, ['limit']],
      // Number() reads each of these as 16 (or 10); the API takes plain decimal digits only.
      ['a hexadecimal limit', { limit: '0x10' }, ['limit']],
      ['a binary limit', { limit: '0b10000' }, ['limit']],
      ['a limit with an exponent', { limit: '1e1' }, ['limit']],
      ['a limit with a leading space', { limit: ' 16' }, ['limit']],
      ['a limit with a trailing space', { limit: '16 ' }, ['limit']],
      ['a limit with a plus sign', { limit: '+16' }, ['limit']],
      ['a limit with a decimal point', { limit: '16.0' }, ['limit']],
      ['an empty limit', { limit: '' }, ['limit']],
      ['a cursor this API did not issue', { cursor: 'not-a-cursor' }, ['cursor']],
      ['a cursor of another shape', { cursor: Buffer.from('id:42').toString('base64url') }, ['cursor']],
      ['an unknown query parameter', { sort: 'asc' }, ['sort']],
    ];

    it.each(bad)('400 naming the parameter for %s', async (_name, query, fields) => {
      expectErrorBody(await t.api().get('/jobs').query(query), 400, fields);
    });

    it('400 for a repeated parameter', async () => {
      expectErrorBody(await t.api().get('/jobs?status=PENDING&status=DEAD'), 400, ['status']);
    });

    it('ends a page early on the size of its jobs, after at least one, and the cursor goes on from there', async () => {
      // Random text, as PostgreSQL stores it (it does not compress): what a page may hold is counted as stored.
      const blob = (bytes: number) => randomBytes((bytes * 3) / 4).toString('base64');
      const ids: string[] = [];
      for (const bytes of [400_000, 400_000, 400_000, 400_000, 1_200_000])
        ids.push((await t.jobs.enqueue('TEST_RECORD', { blob: blob(bytes) }, { queue: 'bulky' })).id);
      try {
        // Newest first: 1.2 MB alone; three of 400 kB (the third takes the page past 1 MiB, so the fourth starts the next); the last.
        const pages = await allPages({ queue: 'bulky', limit: 10 });
        expect(pages.map((p) => p.items.length)).toEqual([1, 3, 1]);
        expect(pages.map((p) => p.nextCursor === null)).toEqual([false, false, true]);
        expect(pages.flatMap((p) => p.items.map((j) => j.id))).toEqual([...ids].reverse());
      } finally {
        await t.sql.query(`DELETE FROM ${t.jobsTable} WHERE queue = 'bulky'`);
      }
    });
  });
});
