import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { Job } from '@conveyor/core';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { ENSURE_CHROMIUM_TIMEOUT_MS } from '../support/ensure-chromium';
import { waitFor } from '../support/wait-for';
import { launchBrowser, openPage, PageProblems, useApiKey } from './support/dashboard-browser';

const ADMIN = `admin-${randomBytes(16).toString('hex')}`;
const QUEUE = 'dash-search';

/**
 * The job search (payload JSON, creation range, type in any case, all in the URL so a search can be shared) and
 * the time zone switch (every time shown in the browser's zone or in UTC, remembered), in headless Chromium on both
 * Nest platforms. The browser runs in Asia/Tokyo (UTC+9, no daylight saving), so the two zones never agree.
 */
describe.each(['express', 'fastify'] as const)('Dashboard search and time zone on %s (headless Chromium)', (platform) => {
  let t: RestTestApp;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let closePage: () => Promise<void>;
  /** Created at 00:00, 01:00, … 05:00 UTC on 1 January 2026, customers acme and globex in turn. */
  const jobs: Job[] = [];

  const rows = () => page.locator('#jobs-table tbody tr');
  const shownIds = async () => (await rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-job')))) as string[];
  const expectShown = (expected: Job[]) =>
    waitFor(async () => JSON.stringify(await shownIds()) === JSON.stringify(expected.map((j) => j.id)), {
      message: `the list to show ${expected.length} jobs`,
    });

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await createRestTestApp(`dashboard_search_${platform}`, {
      platform,
      engine: { runWorkers: false },
      httpOptions: { apiKeys: [{ role: 'admin', key: ADMIN }] },
    });
    for (let i = 0; i < 6; i++) {
      const res = await t
        .api()
        .post('/jobs')
        .set('Authorization', `Bearer ${ADMIN}`)
        .send({ type: 'TEST_RECORD', queue: QUEUE, payload: { order: { customer: i % 2 === 0 ? 'acme' : 'globex' }, n: i } })
        .expect(201);
      jobs.push(res.body as Job);
      await t.sql.query(`UPDATE ${t.jobsTable} SET created_at = $2, run_at = $2 WHERE id = $1`, [
        res.body.id,
        new Date(Date.UTC(2026, 0, 1, i)),
      ]);
    }
  }, ENSURE_CHROMIUM_TIMEOUT_MS + 60_000);

  beforeEach(async () => {
    ({ page, problems, close: closePage } = await openPage(browser, t.baseUrl, { timezoneId: 'Asia/Tokyo' }));
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

  it('searches by payload JSON, shows a bad one in the form, and puts the search in the URL', async () => {
    await page.goto(`/dashboard#/jobs?queue=${QUEUE}`);
    await expectShown([...jobs].reverse());
    await page.fill('#job-filters input[name="payload"]', '{"order": ');
    await page.click('#job-filters button[type="submit"]');
    await page.locator('#payload-problem', { hasText: 'Not valid JSON' }).waitFor();
    expect(page.url()).not.toContain('payload=');

    await page.fill('#job-filters input[name="payload"]', '{"order": {"customer": "acme"}}');
    await page.click('#job-filters button[type="submit"]');
    await page.waitForURL(/payload=/);
    await expectShown([jobs[4], jobs[2], jobs[0]]);

    // The URL alone brings the same search back, in a fresh page.
    const shared = page.url();
    await page.goto('/dashboard#/queues');
    await page.goto(shared);
    await expectShown([jobs[4], jobs[2], jobs[0]]);
    expect(await page.inputValue('#job-filters input[name="payload"]')).toBe('{"order": {"customer": "acme"}}');
  });

  it('searches by creation range (read in the zone in use) and by type in any case', async () => {
    await page.click('[data-zone="utc"]');
    await page.goto(`/dashboard#/jobs?queue=${QUEUE}`);
    await expectShown([...jobs].reverse());
    await page.fill('#job-filters input[name="createdFrom"]', '2026-01-01T01:00');
    await page.fill('#job-filters input[name="createdTo"]', '2026-01-01T03:00');
    await page.fill('#job-filters input[name="type"]', 'test_record');
    await page.click('#job-filters button[type="submit"]');
    await page.waitForURL(/createdFrom=2026-01-01T01%3A00%3A00.000Z/);
    expect(page.url()).toContain('createdTo=2026-01-01T03%3A00%3A59.999Z');
    await expectShown([jobs[3], jobs[2], jobs[1]]);
    // In the browser's zone the same range shows as Tokyo time.
    await page.click('[data-zone="local"]');
    await waitFor(async () => (await page.inputValue('#job-filters input[name="createdFrom"]')) === '2026-01-01T10:00');
    await expectShown([jobs[3], jobs[2], jobs[1]]);
  });

  it('the time zone switch changes every time shown, says which zone is in use, and is remembered', async () => {
    await page.goto(`/dashboard#/jobs?queue=${QUEUE}`);
    const created = page.locator(`tr[data-job="${jobs[0].id}"] [data-cell="created"]`);
    await waitFor(async () => /01 Jan 2026,? 09:00:00/.test((await created.textContent()) ?? ''), { message: 'Tokyo time in the list' });
    expect(await page.locator('#zone-label').textContent()).toBe('Asia/Tokyo (UTC+09:00)');

    await page.click('[data-zone="utc"]');
    await waitFor(async () => /01 Jan 2026,? 00:00:00/.test((await created.textContent()) ?? ''), { message: 'UTC in the list' });
    expect(await page.locator('#zone-label').textContent()).toBe('UTC');
    expect(await page.getAttribute('[data-zone="utc"]', 'aria-pressed')).toBe('true');

    // The job page follows it, facts and timeline alike, and so does a reload.
    await page.goto(`/dashboard#/jobs/${jobs[0].id}`);
    await page.reload();
    await useApiKey(page, ADMIN);
    await waitFor(async () => /00:00:00/.test((await page.locator('[data-fact="Created"]').textContent()) ?? ''), {
      message: 'UTC on the job page',
    });
    expect(await page.locator('#timeline time').first().textContent()).toMatch(/^00:00:00/);
    expect(await page.locator('#zone-label').textContent()).toBe('UTC');

    await page.click('[data-zone="local"]');
    await waitFor(async () => /09:00:00/.test((await page.locator('[data-fact="Created"]').textContent()) ?? ''), {
      message: 'Tokyo time on the job page',
    });
    expect(await page.locator('#timeline time').first().textContent()).toMatch(/^09:00:00/);
  });
});
