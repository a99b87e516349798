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
 * The operator's actions in the dashboard, in headless Chromium on both Nest platforms: choosing jobs and acting on
 * them together, retrying every CANCELLED job of a search, running a waiting job now and cancelling a running one;
 * every outcome checked in the database.
 */
describe.each(['express', 'fastify'] as const)('Dashboard operator actions on %s (headless Chromium)', (platform) => {
  let t: RestTestApp;
  let controls: HandlerControls;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let closePage: () => Promise<void>;
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

  const post = (path: string, body: unknown = {}) =>
    t
      .api()
      .post(path)
      .set('Authorization', `Bearer ${ADMIN}`)
      .send(body as object);
  const submit = async (body: Record<string, unknown>) => (await post('/jobs', body).expect(201)).body as Job;
  const reach = (id: string, status: JobStatus) =>
    waitFor(async () => (await t.statusOf(id)) === status, { message: `job ${id} to be ${status}` });
  const open = async (hash: string) => {
    await page.goto(`/dashboard${hash}`);
    await useApiKey(page, ADMIN);
  };
  const row = (id: string) => page.locator(`tr[data-job="${id}"]`);

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await createRestTestApp(`dashboard_operator_${platform}`, {
      platform,
      providers: [HandlerControls, ControlledHandler],
      httpOptions: { apiKeys: [{ role: 'admin', key: ADMIN }] },
    });
    controls = t.app.get(HandlerControls);
  }, ENSURE_CHROMIUM_TIMEOUT_MS + 60_000);

  beforeEach(async () => {
    ({ page, problems, close: closePage } = await openPage(browser, t.baseUrl));
    page.on('dialog', (dialog) => void dialog.accept());
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

  it('select-all then Cancel cancels the waiting jobs and reports the finished one it refused', async () => {
    const waiting = [await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-bulk-cancel', runAt: inAnHour() })];
    waiting.push(await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-bulk-cancel', runAt: inAnHour() }));
    const done = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-bulk-cancel' });
    await reach(done.id, JobStatus.COMPLETED);

    await open('#/jobs?queue=dash-bulk-cancel');
    await row(done.id).waitFor();
    expect(await page.locator('#bulk-bar').isVisible()).toBe(false);
    await page.check('input[data-select-all]');
    expect(await page.locator('#bulk-bar [data-selected-count]').textContent()).toBe('3');
    await page.click('#bulk-bar button[data-bulk="cancel"]');
    await page.locator('#notice', { hasText: '2 jobs cancelled. 1 refused' }).waitFor();
    for (const j of waiting) expect(await t.statusOf(j.id)).toBe(JobStatus.CANCELLED);
    expect(await t.statusOf(done.id)).toBe(JobStatus.COMPLETED);
    await row(waiting[0].id).locator('[data-status-badge="CANCELLED"]').waitFor();
  });

  it('a live change waits while jobs are chosen: the selection stays, and the list is redrawn once it is cleared', async () => {
    const first = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-bulk-live', runAt: inAnHour() });
    await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-bulk-live', runAt: inAnHour() });
    await open('#/jobs?queue=dash-bulk-live');
    await row(first.id).waitFor();
    await page.check(`input[data-select="${first.id}"]`);
    // Focus leaves the box, as it does in browsers that do not focus a clicked checkbox (a focused input alone
    // holds redraws back, for the filters).
    await page.click('h1');
    // A second page on the same list, nothing chosen there: once it shows the new job, the event has reached both.
    const other = await openPage(browser, t.baseUrl);
    try {
      await other.page.goto('/dashboard#/jobs?queue=dash-bulk-live');
      await useApiKey(other.page, ADMIN);
      await other.page.locator(`tr[data-job="${first.id}"]`).waitFor();
      const arrived = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-bulk-live', runAt: inAnHour() });
      await other.page.locator(`tr[data-job="${arrived.id}"]`).waitFor();
      expect(await page.locator('#bulk-bar [data-selected-count]').textContent()).toBe('1');
      expect(await page.isChecked(`input[data-select="${first.id}"]`)).toBe(true);
      await page.click('#bulk-bar button[data-bulk="clear"]');
      await row(arrived.id).waitFor();
    } finally {
      await other.close();
    }
  });

  it('chosen rows: Retry puts DEAD jobs back, Delete removes finished ones; the others are left alone', async () => {
    controls.failing.add('dash-bulk-dead');
    const deadJob = await submit({ type: 'TEST_CONTROLLED', payload: { name: 'dash-bulk-dead' }, queue: 'dash-bulk-rd' });
    await reach(deadJob.id, JobStatus.DEAD);
    controls.failing.delete('dash-bulk-dead');
    const done = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-bulk-rd' });
    await reach(done.id, JobStatus.COMPLETED);
    const other = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-bulk-rd' });
    await reach(other.id, JobStatus.COMPLETED);

    await open('#/jobs?queue=dash-bulk-rd');
    await page.check(`input[data-select="${deadJob.id}"]`);
    await page.click('#bulk-bar button[data-bulk="retry"]');
    await page.locator('#notice', { hasText: '1 job put back to PENDING.' }).waitFor();
    await reach(deadJob.id, JobStatus.COMPLETED);

    await page.check(`input[data-select="${done.id}"]`);
    await page.check(`input[data-select="${deadJob.id}"]`);
    await page.click('#bulk-bar button[data-bulk="delete"]');
    await page.locator('#notice', { hasText: '2 jobs deleted.' }).waitFor();
    expect(await t.row(done.id)).toBeUndefined();
    expect(await t.row(deadJob.id)).toBeUndefined();
    expect(await t.statusOf(other.id)).toBe(JobStatus.COMPLETED);
    await row(done.id).waitFor({ state: 'detached' });
  });

  it('"Retry all matching CANCELLED" retries the cancelled jobs of the search, and they complete', async () => {
    const jobs = [
      await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-retry-cancelled', runAt: inAnHour() }),
      await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-retry-cancelled', runAt: inAnHour() }),
    ];
    for (const j of jobs) await post(`/jobs/${j.id}/cancel`).expect(200);
    const elsewhere = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-retry-elsewhere', runAt: inAnHour() });
    await post(`/jobs/${elsewhere.id}/cancel`).expect(200);

    await open('#/jobs?queue=dash-retry-cancelled&status=CANCELLED');
    await page.click('button[data-action="retry-matching"]');
    await page.locator('#notice', { hasText: '2 jobs put back to PENDING.' }).waitFor();
    for (const j of jobs) await reach(j.id, JobStatus.COMPLETED);
    expect(await t.statusOf(elsewhere.id)).toBe(JobStatus.CANCELLED);
  });

  it('"Run now" on a scheduled job: it runs at once', async () => {
    const job = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-run-now', runAt: inAnHour() });
    await open(`#/jobs/${job.id}`);
    await page.click('button[data-action="run-now"]');
    await page.locator('#notice', { hasText: 'is due now' }).waitFor();
    await reach(job.id, JobStatus.COMPLETED);
    expect(await t.invocations(job.id)).toBe(1);
  });

  it('Cancel of chosen jobs warns when some of them run, as the single Cancel does', async () => {
    controls.hold('dash-bulk-running');
    const running = await submit({ type: 'TEST_CONTROLLED', payload: { name: 'dash-bulk-running' }, queue: 'dash-bulk-running' });
    const waiting = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'dash-bulk-running', runAt: inAnHour() });
    await reach(running.id, JobStatus.RUNNING);
    await open('#/jobs?queue=dash-bulk-running');
    await row(waiting.id).waitFor();
    await page.check('input[data-select-all]');
    const asked: string[] = [];
    page.on('dialog', (dialog) => void asked.push(dialog.message()));
    await page.click('#bulk-bar button[data-bulk="cancel"]');
    await page.locator('#notice', { hasText: '2 jobs cancelled.' }).waitFor();
    expect(asked).toEqual(['Cancel 2 jobs? 1 of them is running: the handler is told to stop and the outcome is not stored.']);
    await reach(running.id, JobStatus.CANCELLED);
    controls.release('dash-bulk-running');
    expect(await t.row(running.id)).toMatchObject({ status: 'CANCELLED', result: null });
  });

  it('"Cancel" on a running job: it ends CANCELLED and its result is not stored', async () => {
    controls.hold('dash-cancel-running');
    const job = await submit({ type: 'TEST_CONTROLLED', payload: { name: 'dash-cancel-running' } });
    await reach(job.id, JobStatus.RUNNING);
    await open(`#/jobs/${job.id}`);
    await page.click('button[data-action="cancel"]');
    await page.locator('#notice', { hasText: 'its handler was told to stop' }).waitFor();
    await reach(job.id, JobStatus.CANCELLED);
    controls.release('dash-cancel-running');
    await page.locator('h1 [data-status-badge="CANCELLED"]').waitFor();
    expect(await t.row(job.id)).toMatchObject({ status: 'CANCELLED', result: null });
  });
});
