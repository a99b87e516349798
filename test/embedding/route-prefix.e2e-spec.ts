import type { Browser } from 'playwright-core';
import { Job, JobStatus } from '@conveyor/core';
import { launchBrowser, openPage } from '../dashboard/support/dashboard-browser';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { ENSURE_CHROMIUM_TIMEOUT_MS } from '../support/ensure-chromium';
import { TestAppOptions } from '../support/test-app';
import { waitFor } from '../support/wait-for';

interface Mount {
  label: string;
  /** Where Conveyor's routes should be: the global prefix, then the module's path. */
  base: string;
  options: Omit<TestAppOptions, 'schema' | 'listen'>;
}

const MOUNTS: Mount[] = [
  { label: 'app.setGlobalPrefix("api")', base: '/api', options: { globalPrefix: 'api' } },
  { label: 'ConveyorHttpModule.forRoot({ path: "jobs-api" })', base: '/jobs-api', options: { httpOptions: { path: 'jobs-api' } } },
  {
    label: 'both: global prefix "api", path "/conveyor/"',
    base: '/api/conveyor',
    options: { globalPrefix: 'api', httpOptions: { path: '/conveyor/' } },
  },
];

/** The `src` and `href` of every script, stylesheet and icon an HTML page loads. */
function assetUrls(html: string): string[] {
  const tags = html.match(/<(?:script|link|img)\b[^>]*>/g) ?? [];
  return tags.flatMap((tag) => [...tag.matchAll(/\b(?:src|href)=["']([^"']+)["']/g)].map((m) => m[1]));
}

/**
 * Conveyor's routes under a prefix of the host's choosing — Nest's global prefix, the module's `path`, or both:
 * the API, the OpenAPI document and Swagger UI, and the dashboard with every file it loads and every call it makes
 * (driven in Chromium, so the URLs are the ones a browser really resolves).
 */
describe.each(MOUNTS)('Conveyor mounted under $label', ({ label, base, options }) => {
  let t: RestTestApp;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await createRestTestApp(`embed_prefix_${MOUNTS.findIndex((m) => m.label === label)}`, options);
  }, ENSURE_CHROMIUM_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('serves the API under the prefix, and nothing at the root', async () => {
    const created = (await t.api().post(`${base}/jobs`).send({ type: 'TEST_RECORD', payload: {} }).expect(201)).body as Job;
    await waitFor(async () => (await t.statusOf(created.id)) === JobStatus.COMPLETED, { message: 'the job to complete' });
    expect((await t.api().get(`${base}/jobs/${created.id}`).expect(200)).body).toMatchObject({ id: created.id, status: 'COMPLETED' });
    expect((await t.api().get(`${base}/queues`).expect(200)).body.queues).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'default' })]),
    );
    await t.api().get(`${base}/health/ready`).expect(200);
    await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {} }).expect(404);
    await t.api().get('/dashboard').expect(404);
    await t.api().get('/docs-json').expect(404);
  });

  it('serves the OpenAPI document under the prefix, listing the prefixed paths, and the Swagger UI with all its files', async () => {
    const doc = (await t.api().get(`${base}/docs-json`).expect(200)).body as { paths: Record<string, unknown> };
    const paths = Object.keys(doc.paths);
    expect(paths).toEqual(expect.arrayContaining([`${base}/jobs`, `${base}/jobs/{id}`, `${base}/queues`, `${base}/health/ready`]));
    expect(paths.filter((p) => !p.startsWith(`${base}/`))).toEqual([]);

    const page = await t.api().get(`${base}/docs`).expect(200);
    const assets = assetUrls(page.text);
    expect(assets.length).toBeGreaterThan(2);
    for (const asset of assets) {
      const url = new URL(asset, `http://host${base}/docs`);
      expect(url.pathname.startsWith(`${base}/docs/`)).toBe(true);
      await t.api().get(url.pathname).expect(200);
    }
  });

  it('the dashboard loads every file and makes every call under the prefix, in Chromium', async () => {
    const job = (await t.api().post(`${base}/jobs`).send({ type: 'TEST_RECORD', payload: {}, queue: 'prefixed' }).expect(201)).body as Job;
    await waitFor(async () => (await t.statusOf(job.id)) === JobStatus.COMPLETED, { message: 'the job to complete' });
    const { page, problems, close } = await openPage(browser, t.baseUrl);
    const answers: Array<{ path: string; status: number }> = [];
    page.on('response', (res) => answers.push({ path: new URL(res.url()).pathname, status: res.status() }));
    try {
      // Through the trailing-slash redirect, which must keep the prefix.
      await page.goto(`${base}/dashboard/#/queues`);
      expect(new URL(page.url()).pathname).toBe(`${base}/dashboard`);
      await page.locator('tr[data-queue="prefixed"]').waitFor();
      await page.goto(`${base}/dashboard#/jobs?queue=prefixed`);
      await page.locator(`[data-job="${job.id}"]`).waitFor();
      await page.goto(`${base}/dashboard#/jobs/${job.id}`);
      await page.locator('div[data-view="job"]').waitFor();
      await page.locator('body[data-live="on"]').waitFor();
      const docsLink = await page.locator('a', { hasText: 'API docs' }).evaluate((a) => (a as unknown as { href: string }).href);
      expect(new URL(docsLink).pathname).toBe(`${base}/docs`);
    } finally {
      await close();
    }
    const paths = answers.map((a) => a.path);
    // The page, its files and the API calls each view makes.
    expect(paths).toEqual(
      expect.arrayContaining([
        `${base}/dashboard`,
        `${base}/dashboard/app.js`,
        `${base}/dashboard/api.js`,
        `${base}/dashboard/dashboard.css`,
        `${base}/queues`,
        `${base}/queues/throughput`,
        `${base}/jobs`,
        `${base}/jobs/${job.id}`,
        // Live events, which each view follows.
        `${base}/dashboard/live.js`,
        `${base}/events`,
        `${base}/jobs/${job.id}/events`,
      ]),
    );
    expect(paths.filter((p) => !p.startsWith(`${base}/`))).toEqual([]);
    expect(answers.filter((a) => a.status >= 400)).toEqual([]);
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });
});
