import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { JobHandler, JobHandlerHost } from '@conveyor/core';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { ENSURE_CHROMIUM_TIMEOUT_MS } from '../support/ensure-chromium';
import { createTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { launchBrowser, openPage, PageProblems, useApiKey } from './support/dashboard-browser';

const ADMIN = `admin-${randomBytes(16).toString('hex')}`;
const PRODUCER = `producer-${randomBytes(16).toString('hex')}`;
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 };

@JobHandler('DASH_DIGEST', { queue: 'digests' })
class DigestHandler extends JobHandlerHost {
  handle(): void {}
}

const SCHEDULES = [
  { name: 'dash-every-second', type: 'DASH_DIGEST', cron: '* * * * * *' },
  { name: 'dash-yearly', type: 'DASH_DIGEST', cron: '0 0 1 1 *' },
];

/**
 * The Schedules and Instances views of the dashboard, in headless Chromium against the real app with API keys on,
 * on both Nest platforms: the ticks shown are the ones stored, pause, resume and trigger work from the page (checked
 * in the database) and are offered to admin keys only, the instances of the schema are listed with the leader
 * marked, and both views fit a phone's width.
 */
describe.each(['express', 'fastify'] as const)('Dashboard schedules and instances on %s (headless Chromium)', (platform) => {
  let t: RestTestApp;
  let apiOnly: TestApp;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let closePage: () => Promise<void>;

  const stored = async (name: string) =>
    (
      await t.sql.query<{ paused: boolean; last_tick: Date }>(
        `SELECT paused, last_tick FROM ${t.schema.schema}.conveyor_schedules WHERE name = $1`,
        [name],
      )
    ).rows[0];
  const ticksOf = async (name: string) =>
    (
      await t.sql.query<{ run_at: Date }>(
        `SELECT run_at FROM ${t.jobsTable} WHERE idempotency_key LIKE $1 AND idempotency_key NOT LIKE $2`,
        [`cron:${name}:%`, `cron:${name}:trigger:%`],
      )
    ).rows.map((r) => r.run_at.toISOString());
  const open = async (hash: string, key = ADMIN) => {
    await page.goto(`/dashboard${hash}`);
    await useApiKey(page, key);
  };

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await createRestTestApp(`dashboard_schedules_${platform}`, {
      platform,
      providers: [DigestHandler],
      engine: { workerId: `dash-worker-${platform}`, schedules: SCHEDULES },
      httpOptions: {
        apiKeys: [
          { role: 'admin', key: ADMIN },
          { role: 'producer', key: PRODUCER },
        ],
      },
    });
    // A second instance on the schema: API-only, without HTTP.
    apiOnly = await createTestApp({
      schema: t.schema.schema,
      http: false,
      providers: [DigestHandler],
      appName: 'dash-api-only',
      engine: { workerId: `dash-api-only-${platform}`, runWorkers: false, schedules: SCHEDULES },
    });
  }, ENSURE_CHROMIUM_TIMEOUT_MS + 60_000);

  beforeEach(async () => {
    ({ page, problems, close: closePage } = await openPage(browser, t.baseUrl));
  });

  afterEach(async () => {
    await closePage?.();
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });

  afterAll(async () => {
    await browser?.close();
    await apiOnly?.close();
    await t?.close();
  });

  it('the schedules view shows each schedule with its cron, job type, queue, and the stored last and next tick', async () => {
    await waitFor(async () => (await ticksOf('dash-every-second')).length > 0, { message: 'a first tick' });
    await open('#/schedules');
    const row = page.locator('tr[data-schedule="dash-every-second"]');
    await row.locator('td[data-last-tick]:not([data-last-tick=""])').waitFor();
    expect(await row.locator('[data-cron]').textContent()).toBe('* * * * * *');
    expect(await row.textContent()).toContain('DASH_DIGEST in digests');
    expect(await row.locator('[data-paused]').textContent()).toBe('Active');
    const lastTick = (await row.locator('td[data-last-tick]').getAttribute('data-last-tick'))!;
    const nextTick = (await row.locator('td[data-next-tick]').getAttribute('data-next-tick'))!;
    expect(await ticksOf('dash-every-second')).toContain(lastTick);
    expect(Date.parse(nextTick)).toBe(Date.parse(lastTick) + 1000);

    const yearly = page.locator('tr[data-schedule="dash-yearly"]');
    expect(await yearly.locator('td[data-last-tick]').textContent()).toBe('none yet');
    expect(await yearly.locator('td[data-next-tick]').getAttribute('data-next-tick')).toMatch(/^\d{4}-01-01T00:00:00\.000Z$/);
    await page.locator('nav a[data-nav="schedules"].active').waitFor();
  });

  it('pause, resume and trigger work from the view', async () => {
    await open('#/schedules');
    const row = page.locator('tr[data-schedule="dash-every-second"]');
    await row.locator('button[data-action="pause"]').click();
    await waitFor(async () => (await stored('dash-every-second'))?.paused === true, { message: 'the schedule to be paused' });
    await row.locator('[data-paused="true"]').waitFor();
    expect(await row.locator('td[data-next-tick]').textContent()).toBe('paused');
    await page.locator('#notice', { hasText: 'Schedule dash-every-second paused.' }).waitFor();

    await row.locator('button[data-action="resume"]').click();
    await waitFor(async () => (await stored('dash-every-second'))?.paused === false, { message: 'the schedule to be resumed' });
    await row.locator('[data-paused="false"]').waitFor();

    await page.locator('tr[data-schedule="dash-yearly"] button[data-action="trigger"]').click();
    const job = await waitFor(
      async () =>
        (await t.sql.query<{ id: string }>(`SELECT id FROM ${t.jobsTable} WHERE idempotency_key LIKE 'cron:dash-yearly:trigger:%'`))
          .rows[0],
      { message: 'the triggered job' },
    );
    // Notices show a job's id in its short form, both ends kept.
    await page
      .locator('#notice', { hasText: `Job ${job.id.slice(0, 8)}…${job.id.slice(-8)} enqueued for schedule dash-yearly.` })
      .waitFor();
    // The regular tick is not disturbed: the yearly schedule still has enqueued no tick.
    expect(await ticksOf('dash-yearly')).toEqual([]);
  });

  it('a producer key reads the schedules and instances but is offered no button', async () => {
    await open('#/schedules', PRODUCER);
    await page.locator('tr[data-schedule="dash-yearly"]').waitFor();
    expect(await page.locator('#schedules-table button').count()).toBe(0);
    await page.goto('/dashboard#/instances');
    await page.locator('#instances-table').waitFor();
    expect(await page.locator('#instances-table button').count()).toBe(0);
  });

  it('the instances view lists the instances of the schema, the leader marked', async () => {
    await open('#/instances');
    const worker = page.locator(`tr[data-instance="dash-worker-${platform}"]`);
    const other = page.locator(`tr[data-instance="dash-api-only-${platform}"]`);
    await worker.waitFor();
    await other.waitFor();
    expect(await worker.locator('td[data-running]').textContent()).toMatch(/^\d+ \/ 10$/);
    expect(await worker.locator('td[data-queues]').getAttribute('data-queues')).toBe('default,digests,mail');
    expect(await other.locator('td[data-running]').textContent()).toBe('API only');
    const holder = (await t.sql.query<{ holder: string }>(`SELECT holder FROM ${t.schema.schema}.conveyor_leadership`)).rows[0].holder;
    // The page refreshes every 5 s; the leader mark follows the leadership row.
    await page.locator(`tr[data-instance="${holder}"] [data-leader="true"]`).waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-leader="true"]').count()).toBe(1);
    await page.locator('nav a[data-nav="instances"].active').waitFor();
  });

  it('at 390 px both views fit the width', async () => {
    const phone = await openPage(browser, t.baseUrl, PHONE);
    try {
      await phone.page.goto('/dashboard#/schedules');
      await useApiKey(phone.page, ADMIN);
      for (const [hash, shown] of [
        ['#/schedules', '#schedules-table'],
        ['#/instances', '#instances-table'],
      ]) {
        await phone.page.goto(`/dashboard${hash}`);
        await phone.page.locator(shown).waitFor();
        const [scroll, client] = (await phone.page.evaluate(
          '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
        )) as [number, number];
        expect({ hash, scroll }).toEqual({ hash, scroll: client });
        const nav = (await phone.page.locator('nav.tabs').boundingBox())!;
        expect({ hash, navInside: nav.x >= 0 && nav.x + nav.width <= 390 }).toEqual({ hash, navInside: true });
      }
    } finally {
      await phone.close();
    }
    expect(phone.problems).toEqual({ errors: [], cspViolations: [] });
  });
});
