import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { Job, JobStatus } from '@conveyor/core';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { ENSURE_CHROMIUM_TIMEOUT_MS } from '../support/ensure-chromium';
import { waitFor } from '../support/wait-for';
import { launchBrowser, openPage, PageProblems, useApiKey } from './support/dashboard-browser';

const ADMIN = `admin-${randomBytes(16).toString('hex')}`;

/**
 * Job ids are UUIDv7, so jobs made in the same millisecond share their first 12 hex digits: the dashboard must
 * still tell them apart wherever it shows an id (list, job view, notices), and copy the full id in one click.
 * Driven in headless Chromium against the real app, on both Nest platforms.
 */
describe.each(['express', 'fastify'] as const)('Dashboard job ids on %s (headless Chromium)', (platform) => {
  let t: RestTestApp;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let closePage: () => Promise<void>;

  const post = (path: string, body: unknown = {}) =>
    t
      .api()
      .post(path)
      .set('Authorization', `Bearer ${ADMIN}`)
      .send(body as object);
  /** One batch: one multi-row insert whose ids the submitting process makes in one go. */
  const submitBatch = async (queue: string, n: number) =>
    (
      (
        await post('/jobs/batch', {
          jobs: Array.from({ length: n }, (_, i) => ({ type: 'TEST_RECORD', payload: { i }, queue, delayMs: 3_600_000 })),
        }).expect(201)
      ).body as { jobs: Job[] }
    ).jobs;
  /** The clipboard's text, read in the page (a string: the tests are compiled without the DOM's types). */
  const clipboard = () => page.evaluate('navigator.clipboard.readText()') as Promise<string>;

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await createRestTestApp(`dashboard_ids_${platform}`, { platform, httpOptions: { apiKeys: [{ role: 'admin', key: ADMIN }] } });
  }, ENSURE_CHROMIUM_TIMEOUT_MS + 60_000);

  beforeEach(async () => {
    ({ page, problems, close: closePage } = await openPage(browser, t.baseUrl, { permissions: ['clipboard-read', 'clipboard-write'] }));
    await page.goto('/dashboard#/queues');
    await useApiKey(page, ADMIN);
  });

  afterEach(async () => {
    await closePage?.();
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('jobs made in the same millisecond show distinct ids in the list, and a notice names a job as its row does', async () => {
    const jobs = await submitBatch('ids-same-ms', 12);
    // The premise: ids that share their millisecond (the first 13 characters) and so their first 8.
    const millis = jobs.map((j) => j.id.slice(0, 13));
    expect(new Set(millis).size).toBeLessThan(jobs.length);
    expect(new Set(jobs.map((j) => j.id.slice(0, 8))).size).toBe(1);

    await page.goto('/dashboard#/jobs?queue=ids-same-ms');
    const idCells = page.locator('#jobs-table td[data-cell="id"] a');
    await waitFor(async () => (await idCells.count()) === jobs.length, { message: 'every job in the list' });
    const shown = await idCells.allTextContents();
    expect(new Set(shown).size).toBe(jobs.length);
    // Each row's id names its own job: the full id is its title (what a hover shows).
    for (const job of jobs)
      expect(await page.locator(`tr[data-job="${job.id}"] td[data-cell="id"] [title]`).first().getAttribute('title')).toBe(job.id);

    const target = jobs[5];
    const row = page.locator(`tr[data-job="${target.id}"]`);
    const rowId = await row.locator('td[data-cell="id"] a').textContent();
    await row.locator('button[data-action="cancel"]').click();
    await waitFor(async () => (await t.statusOf(target.id)) === JobStatus.CANCELLED, { message: 'the job to be cancelled' });
    const notice = page.locator('#notice');
    await notice.filter({ hasText: 'cancelled.' }).waitFor();
    expect(await notice.textContent()).toBe(`Job ${rowId} cancelled.`);
    for (const other of shown.filter((text) => text !== rowId)) expect(await notice.textContent()).not.toContain(other);
  });

  it('one click copies the full id from the list, says so, and does not open the job', async () => {
    const [job] = await submitBatch('ids-copy', 3);
    await page.goto('/dashboard#/jobs?queue=ids-copy');
    const copy = page.locator(`tr[data-job="${job.id}"] button[data-action="copy-id"]`);
    await copy.click();
    await copy.filter({ hasText: 'Copied' }).waitFor();
    expect(await clipboard()).toBe(job.id);
    expect(page.url()).toMatch(/#\/jobs\?queue=ids-copy$/);
    // The confirmation goes away again.
    await copy.filter({ hasNotText: 'Copied' }).waitFor();
  });

  it('the job view shows the full id and copies it in one click', async () => {
    const jobs = await submitBatch('ids-detail', 2);
    await page.goto(`/dashboard#/jobs/${jobs[1].id}`);
    expect(await page.locator('#job-id').textContent()).toBe(jobs[1].id);
    await page.click('.page-head button[data-action="copy-id"]');
    await page.locator('.page-head button[data-action="copy-id"]', { hasText: 'Copied' }).waitFor();
    expect(await clipboard()).toBe(jobs[1].id);
  });
});
