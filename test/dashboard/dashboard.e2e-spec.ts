import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { Job, JobStatus } from '@conveyor/core';
import { ControlledHandler, HandlerControls } from '../http/support/controlled.handler';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { ENSURE_CHROMIUM_TIMEOUT_MS } from '../support/ensure-chromium';
import { waitFor } from '../support/wait-for';
import { launchBrowser, openPage, PageProblems, useApiKey } from './support/dashboard-browser';

const ADMIN = `admin-${randomBytes(16).toString('hex')}`;

/**
 * The dashboard at /dashboard, driven in headless Chromium against the real app with API keys on, on both Nest
 * platforms: what it shows is checked against the database, and what its buttons do is checked in the database.
 * The API docs page, served next to it, is driven too.
 */
describe.each(['express', 'fastify'] as const)('Dashboard on %s (headless Chromium)', (platform) => {
  let t: RestTestApp;
  let controls: HandlerControls;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let closePage: () => Promise<void>;

  const post = (path: string, body: unknown = {}, key = ADMIN) =>
    t
      .api()
      .post(path)
      .set('Authorization', `Bearer ${key}`)
      .send(body as object);
  const submit = async (body: Record<string, unknown>) => (await post('/jobs', body).expect(201)).body as Job;
  const reach = (id: string, status: JobStatus, timeoutMs = 10_000) =>
    waitFor(async () => (await t.statusOf(id)) === status, { timeoutMs, message: `job ${id} to be ${status}` });
  const dead = async (queue: string, name: string) => {
    controls.failing.add(name);
    const job = await submit({ type: 'TEST_CONTROLLED', payload: { name }, queue });
    await reach(job.id, JobStatus.DEAD);
    return job;
  };
  const pausedInDb = async (name: string) =>
    (await t.sql.query(`SELECT paused FROM ${t.db.queuesTable} WHERE name = $1`, [name])).rows[0]?.paused === true;
  /** Opens the dashboard at `hash` with the admin key pasted. */
  const open = async (hash = '#/queues', key: string | null = ADMIN) => {
    await page.goto(`/dashboard${hash}`);
    if (key) await useApiKey(page, key);
  };

  beforeAll(async () => {
    // The first run on a fresh machine installs Chromium (scripts/ensure-chromium.sh).
    browser = await launchBrowser();
    t = await createRestTestApp(`dashboard_${platform}`, {
      platform,
      providers: [HandlerControls, ControlledHandler],
      httpOptions: { apiKeys: [{ role: 'admin', key: ADMIN }] },
    });
    controls = t.app.get(HandlerControls);
  }, ENSURE_CHROMIUM_TIMEOUT_MS + 60_000);

  beforeEach(async () => {
    ({ page, problems, close: closePage } = await openPage(browser, t.baseUrl));
  });

  afterEach(async () => {
    await closePage?.();
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });

  afterAll(async () => {
    controls?.releaseAll();
    await browser?.close();
    await t?.close();
  });

  it('the overview shows each queue with its counts per status, as stored', async () => {
    const completed = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-counts' });
    await reach(completed.id, JobStatus.COMPLETED);
    await dead('dash-counts', 'counts-dead');
    await post('/queues/dash-counts/pause').expect(200);
    await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-counts' });
    await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-counts' });
    await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-counts', delayMs: 3_600_000 });
    const cancelled = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-counts' });
    await post(`/jobs/${cancelled.id}/cancel`).expect(200);

    await open();
    const row = page.locator('tr[data-queue="dash-counts"]');
    await row.waitFor();
    const expected = { SCHEDULED: 1, PENDING: 2, RUNNING: 0, RETRYING: 0, COMPLETED: 1, DEAD: 1, CANCELLED: 1 };
    const { rows } = await t.sql.query<{ status: JobStatus; n: number }>(
      `SELECT status, count(*)::int AS n FROM ${t.jobsTable} WHERE queue = 'dash-counts' GROUP BY status`,
    );
    expect(Object.fromEntries(rows.map((r) => [r.status, r.n]))).toEqual(
      Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0)),
    );
    for (const [status, n] of Object.entries(expected)) {
      expect({ status, shown: (await row.locator(`td[data-count="${status}"]`).textContent())?.trim() }).toEqual({
        status,
        shown: String(n),
      });
    }
    expect(await row.locator('[data-paused]').textContent()).toBe('Paused');
    // Two ready jobs are waiting, so the age of the oldest one is shown.
    expect(await row.locator('td[data-oldest-ready]').textContent()).toMatch(/^\d+ (s|min)$/);
    // The throughput chart is drawn by the page (inline SVG), with the completed job in it.
    await page.locator('svg.chart .bar-completed').first().waitFor();
  });

  it('retrying a DEAD job from its page runs it again, to COMPLETED', async () => {
    const job = await dead('dash-retry', 'retry-me');
    await open(`#/jobs/${job.id}`);
    // The detail shows the failed attempt with its worker, and the timeline its end.
    const attempt = page.locator('#errors-table tr[data-attempt="1"]');
    await attempt.waitFor();
    const stored = (await t.row(job.id))!.errors as Array<{ worker: string }>;
    expect(await attempt.textContent()).toContain(stored[0].worker);
    expect(await attempt.textContent()).toContain('retry-me: downstream is down');
    expect(await page.locator('#timeline').textContent()).toMatch(/Created.*Attempt 1 failed.*Dead/s);

    controls.failing.delete('retry-me');
    await page.click('button[data-action="retry"]');
    await reach(job.id, JobStatus.COMPLETED);
    expect(await t.row(job.id)).toMatchObject({ status: 'COMPLETED', attempts: 1, result: { done: 'retry-me' } });
    // The page follows: it re-renders after the action and refreshes while the job is in flight.
    await page.locator('h1 [data-status-badge="COMPLETED"]').waitFor({ timeout: 15_000 });
  });

  it('a scheduled job cancelled before it was due shows no future "Due" step; a waiting one does', async () => {
    // Due in 59 min 30 s: the page rounds to whole seconds and then floors to minutes, so it reads "59 min" for any
    // render within 29 s of the insert (an hour exactly reads "1 h" when the page renders within half a second).
    const waiting = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-due', delayMs: 3_570_000 });
    const cancelled = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-due', delayMs: 3_600_000 });
    await post(`/jobs/${cancelled.id}/cancel`).expect(200);

    await open(`#/jobs/${cancelled.id}`);
    await page.locator('h1 [data-status-badge="CANCELLED"]').waitFor();
    const steps = page.locator('#timeline li strong');
    expect(await steps.allTextContents()).toEqual(['Created', 'Cancelled']);
    expect(await page.locator('dd[data-fact="Run at"]').textContent()).toMatch(/\(cancelled before then\)$/);

    await page.goto(`/dashboard#/jobs/${waiting.id}`);
    await page.locator('h1 [data-status-badge="SCHEDULED"]').waitFor();
    expect(await steps.allTextContents()).toEqual(['Created', 'Due']);
    expect(await page.locator('#timeline').textContent()).toContain('scheduled, runs in 59 min');
  });

  it('the job view shows the unique key and the idempotency key, as stored', async () => {
    const job = await submit({
      type: 'TEST_RECORD',
      payload: {},
      queue: 'dash-keys',
      delayMs: 3_600_000,
      uniqueKey: 'nightly-export:2026-11-25',
      idempotencyKey: 'export-req-77',
    });
    const stored = (await t.row(job.id))!;
    expect({ unique: stored.unique_key, idempotency: stored.idempotency_key }).toEqual({
      unique: 'nightly-export:2026-11-25',
      idempotency: 'export-req-77',
    });
    await open(`#/jobs/${job.id}`);
    await page.locator('.facts').waitFor();
    expect(await page.locator('.facts').textContent()).toContain('nightly-export:2026-11-25');
    expect(await page.locator('dd[data-fact="Unique key"]').textContent()).toBe('nightly-export:2026-11-25');
    expect(await page.locator('dd[data-fact="Idempotency key"]').textContent()).toBe('export-req-77');
  });

  it('pausing a queue from the overview stops claims from it; resuming runs its jobs', async () => {
    const first = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-pause' });
    await reach(first.id, JobStatus.COMPLETED);
    await open();
    await page.click('tr[data-queue="dash-pause"] button[data-action="pause"]');
    await waitFor(() => pausedInDb('dash-pause'), { message: 'dash-pause to be paused' });
    await page.locator('tr[data-queue="dash-pause"] button[data-action="resume"]').waitFor();

    const held = [];
    for (let i = 0; i < 3; i++) held.push(await submit({ type: 'TEST_RECORD', payload: { i }, queue: 'dash-pause' }));
    // Submitted later and at a lower priority in another queue: once it has run, a worker that would claim
    // from the paused queue would have taken the held jobs first.
    const other = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-other', priority: 10 });
    await reach(other.id, JobStatus.COMPLETED);
    for (const job of held) {
      expect(await t.statusOf(job.id)).toBe(JobStatus.PENDING);
      expect(await t.invocations(job.id)).toBe(0);
    }

    await page.click('tr[data-queue="dash-pause"] button[data-action="resume"]');
    for (const job of held) await reach(job.id, JobStatus.COMPLETED);
    expect(await pausedInDb('dash-pause')).toBe(false);
  });

  it('cancelling a waiting job from the job list ends it CANCELLED, and it never runs', async () => {
    const job = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-cancel', delayMs: 3_600_000 });
    await open('#/jobs?queue=dash-cancel');
    const row = page.locator(`tr[data-job="${job.id}"]`);
    await row.locator('[data-status-badge="SCHEDULED"]').waitFor();
    await row.locator('button[data-action="cancel"]').click();
    await reach(job.id, JobStatus.CANCELLED);
    await row.locator('[data-status-badge="CANCELLED"]').waitFor();
    expect(await t.invocations(job.id)).toBe(0);
  });

  it('"Retry all matching" retries every DEAD job of the filtered queue, and they complete', async () => {
    const jobs = [await dead('dash-bulk', 'bulk-1'), await dead('dash-bulk', 'bulk-2')];
    const elsewhere = await dead('dash-bulk-other', 'bulk-3');
    controls.failing.delete('bulk-1');
    controls.failing.delete('bulk-2');
    await open('#/jobs?queue=dash-bulk&status=DEAD');
    await page.locator('#jobs-table tbody tr').nth(1).waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('button[data-action="retry-matching"]');
    for (const job of jobs) await reach(job.id, JobStatus.COMPLETED);
    await page.locator('#notice', { hasText: '2 jobs put back to PENDING.' }).waitFor();
    expect(await t.statusOf(elsewhere.id)).toBe(JobStatus.DEAD);
  });

  it('"Retry all matching" goes on past the 1,000 jobs one call of the API retries', async () => {
    // A paused queue keeps the retried jobs PENDING; the jobs are made DEAD in the table, as 1,200 failures would.
    await post('/queues/dash-many/pause').expect(200);
    await t.jobs.enqueueMany(Array.from({ length: 1_200 }, (_, i) => ({ type: 'TEST_RECORD', payload: { i }, queue: 'dash-many' })));
    await t.sql.query(`UPDATE ${t.jobsTable} SET status = 'DEAD', attempts = 1, finished_at = now() WHERE queue = 'dash-many'`);
    await open('#/jobs?queue=dash-many&status=DEAD');
    await page.locator('#jobs-table tbody tr').first().waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('button[data-action="retry-matching"]');
    await page.locator('#notice', { hasText: '1200 jobs put back to PENDING.' }).waitFor();
    const { rows } = await t.sql.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM ${t.jobsTable} WHERE queue = 'dash-many' GROUP BY status`,
    );
    expect(rows).toEqual([{ status: 'PENDING', n: 1_200 }]);
  });

  it('the job list filters by the form and pages with the cursor', async () => {
    for (let i = 0; i < 30; i++)
      await submit({ type: 'TEST_RECORD', payload: { i }, queue: 'dash-page', delayMs: 3_600_000, idempotencyKey: `page-${i}` });
    await open('#/jobs');
    await page.fill('#job-filters input[name="queue"]', 'dash-page');
    await page.selectOption('#job-filters select[name="status"]', 'SCHEDULED');
    await page.click('#job-filters button[type="submit"]');
    await page.waitForURL(/#\/jobs\?queue=dash-page&status=SCHEDULED$/);
    const rows = page.locator('#jobs-table tbody tr');
    // The unfiltered list stays on screen until the filtered one is drawn, and it has an "Older" link of its own
    // (the other tests' jobs fill more than a page): wait for the link that keeps the filter.
    const older = page.locator('[data-action="older"][href*="queue=dash-page"]');
    await older.waitFor();
    expect(await rows.count()).toBe(25);
    await older.click();
    await waitFor(async () => (await rows.count()) === 5, { message: 'the second page' });
    // Newest first across both pages: the last row is the first job submitted.
    expect(await rows.last().getAttribute('data-job')).toBe((await t.rows(`queue = 'dash-page' AND idempotency_key = 'page-0'`))[0].id);

    await page.goto('/dashboard#/jobs?key=page-1');
    await waitFor(async () => (await rows.count()) === 11, { message: 'keys containing page-1' }); // page-1, page-10…19
  });

  it('the page being left takes no clicks while the next one loads: its links cannot act in place of it', async () => {
    for (let i = 0; i < 26; i++) await submit({ type: 'TEST_RECORD', payload: { i }, queue: 'dash-leave', delayMs: 3_600_000 });
    await open('#/jobs?queue=dash-leave');
    const leftOlder = page.locator('[data-action="older"]');
    await leftOlder.waitFor();
    expect(await page.locator('#view').getAttribute('data-leaving')).toBeNull();
    // The filtered list's answer is held until the left list's "Older" link has been clicked.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname.endsWith('/jobs') && url.searchParams.get('status') === 'SCHEDULED',
      async (route) => {
        await held;
        await route.continue();
      },
    );
    await page.selectOption('#job-filters select[name="status"]', 'SCHEDULED');
    await page.click('#job-filters button[type="submit"]');
    await page.waitForURL(/#\/jobs\?queue=dash-leave&status=SCHEDULED$/);
    const hash = async () => (await page.evaluate('location.hash')) as string;
    try {
      await page.locator('#view[data-leaving]').waitFor();
      // A click where the link is on screen, as a user's would land (a locator's click would wait for it to take one).
      await leftOlder.scrollIntoViewIfNeeded();
      const box = await leftOlder.boundingBox();
      if (!box) throw new Error('the left list is no longer on screen');
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      expect(await hash()).toBe('#/jobs?queue=dash-leave&status=SCHEDULED');
    } finally {
      release();
    }
    await page.locator('#view:not([data-leaving]) [data-action="older"][href*="status=SCHEDULED"]').waitFor();
    expect(await hash()).toBe('#/jobs?queue=dash-leave&status=SCHEDULED');
  });

  it('an address no view has, or a job id that is none, says so instead of showing the queues', async () => {
    await open('#/jobs/not-a-uuid');
    await page.locator('[data-error="400"]', { hasText: 'Could not load this page' }).waitFor();
    expect(await page.locator('[data-view="queues"]').count()).toBe(0);
    await page.goto('/dashboard#/nothing-here');
    await page.locator('[data-error="not-found"]', { hasText: 'No such page' }).waitFor();
    expect(await page.locator('[data-view="queues"]').count()).toBe(0);
  });

  it('a redraw keeps the keyboard focus on the same control, and is not read out as a whole', async () => {
    const first = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-focus', delayMs: 3_600_000 });
    await open('#/jobs?queue=dash-focus');
    await page.focus(`[data-job="${first.id}"] [data-action="cancel"]`);
    const focused = () =>
      page.evaluate(
        "(document.activeElement.closest('[data-job]')?.dataset.job ?? '') + ' ' + (document.activeElement.dataset.action ?? '')",
      );
    expect(await focused()).toBe(`${first.id} cancel`);
    // A job submitted now reaches the list as a live event: the list is drawn again with both rows.
    const second = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-focus', delayMs: 3_600_000 });
    await page.locator(`[data-job="${second.id}"]`).waitFor();
    expect(await focused()).toBe(`${first.id} cancel`);
    expect(await page.getAttribute('#view', 'aria-live')).toBeNull();
  });

  it('the job list, without live events, shows that the API went away instead of staying as it was', async () => {
    await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-gone', delayMs: 3_600_000 });
    await page.route(
      (url) => url.pathname.endsWith('/events'),
      (route) => route.abort(),
    );
    await open('#/jobs?queue=dash-gone');
    await page.locator('[data-view="jobs"] tbody tr').first().waitFor();
    await page.route(
      (url) => url.pathname.endsWith('/jobs'),
      (route) => route.abort(),
    );
    await page.locator('.error-card', { hasText: 'Could not load this page' }).waitFor({ timeout: 15_000 });
  });

  it('the API docs page renders the Swagger UI from the OpenAPI document, with no error and no CSP refusal', async () => {
    const failed: string[] = [];
    page.on('response', (res) => {
      if (res.status() >= 400) failed.push(`${res.status()} ${new URL(res.url()).pathname}`);
    });
    await page.goto('/docs');
    await page.locator('.swagger-ui .info .title', { hasText: 'Conveyor API' }).waitFor();
    await page.locator('.opblock-summary-path', { hasText: '/jobs/{id}' }).first().waitFor();
    expect(failed).toEqual([]);
  });
});
