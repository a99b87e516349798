import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { LiveWatchDetector } from '@conveyor/core/observation/live/live-watch-detector.service';
import { ENSURE_CHROMIUM_TIMEOUT_MS } from '../support/ensure-chromium';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { GatedHandler, openGate } from '../live/support/gated-handler';
import { launchBrowser, openPage, PageProblems, useApiKey } from './support/dashboard-browser';

const ADMIN = `admin-${randomBytes(16).toString('hex')}`;

/**
 * The dashboard follows live events: the job list and a job's page change as the job does — inserted, running with
 * its progress, completed — without a reload, although another instance did all of it. In headless Chromium, on
 * both Nest platforms.
 */
describe.each(['express', 'fastify'] as const)('Dashboard live updates on %s (headless Chromium)', (platform) => {
  let schema: TestSchema;
  let a: TestApp;
  let b: TestApp;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let closePage: () => Promise<void>;

  /** Marks the page, so a test can tell that what it sees was not a reload. */
  const markPage = () => page.evaluate('window.__notReloaded = true');
  const stillSamePage = async () => (await page.evaluate('window.__notReloaded === true')) as boolean;
  const liveOn = () => waitFor(async () => (await page.getAttribute('body', 'data-live')) === 'on', { message: 'the live stream to open' });
  const watched = () => waitFor(() => b.app.get(LiveWatchDetector).watched, { message: "B to see A's watch lease" });

  beforeAll(async () => {
    browser = await launchBrowser();
    schema = await createTestSchema(`dashboard_live_${platform}`);
    const common = {
      schema: schema.schema,
      providers: [GatedHandler],
      listen: true,
      httpOptions: { apiKeys: [{ role: 'admin' as const, key: ADMIN }] },
    };
    a = await createTestApp({ ...common, platform, engine: { runWorkers: false, externalTypes: ['EXT_DASH'] } });
    b = await createTestApp({ ...common, engine: { externalTypes: ['EXT_DASH'] } });
  }, ENSURE_CHROMIUM_TIMEOUT_MS + 60_000);

  beforeEach(async () => {
    ({ page, problems, close: closePage } = await openPage(browser, a.baseUrl));
    await page.goto('/dashboard#/queues');
    await useApiKey(page, ADMIN);
  });

  afterEach(async () => {
    await closePage?.();
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  it('the job list shows a new job, then its status changes, without a reload', async () => {
    await page.goto('/dashboard#/jobs?queue=live-list');
    await liveOn();
    await watched();
    await markPage();
    const job = await b.jobs.enqueue('GATED', {}, { queue: 'live-list' });
    const status = page.locator(`tr[data-job="${job.id}"] [data-status-badge]`);
    await waitFor(async () => (await status.count()) === 1 && (await status.textContent()) === 'RUNNING', {
      message: 'the running job in the list',
    });
    openGate(job.id);
    await waitFor(async () => (await status.textContent()) === 'COMPLETED', { message: 'the list to show it completed' });
    expect(await stillSamePage()).toBe(true);
  });

  it("a job's page shows an HTTP worker's progress, then its completion, without a reload", async () => {
    const onB = (path: string, body: unknown) =>
      fetch(`${b.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN}` },
        body: JSON.stringify(body),
      });
    const job = await b.jobs.enqueue('EXT_DASH', {}, { queue: 'live-page' });
    await page.goto(`/dashboard#/jobs/${job.id}`);
    await liveOn();
    await watched();
    await markPage();
    const badge = page.locator('h1 [data-status-badge]');
    await waitFor(async () => (await badge.textContent()) === 'PENDING', { message: 'the job waiting' });

    const claim = (await (await onB('/queues/live-page/claim', { workerId: 'dash-worker' })).json()) as {
      jobs: Array<{ leaseToken: string }>;
    };
    const { leaseToken } = claim.jobs[0];
    await waitFor(async () => (await badge.textContent()) === 'RUNNING', { message: 'the job running' });
    expect((await onB(`/jobs/${job.id}/progress`, { leaseToken, percent: 30, data: { step: 'rendering' } })).status).toBe(200);
    await waitFor(
      async () =>
        (await page
          .locator('#progress-percent')
          .textContent()
          .catch(() => null)) === '30%',
      { message: 'the progress' },
    );
    expect(await page.locator('#progress-data').textContent()).toContain('rendering');
    expect((await onB(`/jobs/${job.id}/complete`, { leaseToken, result: { pages: 3 } })).status).toBe(200);
    await waitFor(async () => (await badge.textContent()) === 'COMPLETED', { message: 'the page to show it completed' });
    expect(await stillSamePage()).toBe(true);
  });
});
