import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { Job, JobStatus } from '@conveyor/core';
import { ControlledHandler, HandlerControls } from '../http/support/controlled.handler';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { ENSURE_CHROMIUM_TIMEOUT_MS } from '../support/ensure-chromium';
import { waitFor } from '../support/wait-for';
import { launchBrowser, openPage, PageProblems, useApiKey } from './support/dashboard-browser';

const ADMIN = `admin-${randomBytes(16).toString('hex')}`;
const WORKER = `worker-${randomBytes(16).toString('hex')}`;
const PRODUCER = `producer-${randomBytes(16).toString('hex')}`;

/** Every action button the dashboard has; each is an admin route in the API. */
const ACTIONS =
  'button[data-action="pause"], button[data-action="resume"], button[data-action="retry"], button[data-action="cancel"], button[data-action="retry-matching"]';

/** The actions the page offers, by name. */
async function actionsOn(page: Page): Promise<string[]> {
  const buttons = page.locator(ACTIONS);
  const names: string[] = [];
  for (let i = 0; i < (await buttons.count()); i++) names.push((await buttons.nth(i).getAttribute('data-action')) ?? '');
  return names;
}

/**
 * What the dashboard offers depends on the key in use: an admin key every action, a producer or worker key
 * none (it reads), a wrong key is told it is wrong, no key that one is needed. Driven in headless Chromium
 * against the real app with API keys on, on both Nest platforms.
 */
describe.each(['express', 'fastify'] as const)('Dashboard access by key on %s (headless Chromium)', (platform) => {
  let t: RestTestApp;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let closePage: () => Promise<void>;
  /** A job in every state that has an action, in queues paused and not. */
  let jobs: { scheduled: Job; cancelled: Job; dead: Job };

  const post = (path: string, body: unknown = {}) =>
    t
      .api()
      .post(path)
      .set('Authorization', `Bearer ${ADMIN}`)
      .send(body as object);
  const submit = async (body: Record<string, unknown>) => (await post('/jobs', body).expect(201)).body as Job;
  const pausedInDb = async (name: string) =>
    (await t.sql.query(`SELECT paused FROM ${t.db.queuesTable} WHERE name = $1`, [name])).rows[0]?.paused === true;

  /** The pages an operator acts from, each with what shows that it (and not the page before) is drawn. */
  const views = () => [
    { hash: '#/queues', shown: page.locator('tr[data-queue="access-paused"]') },
    { hash: '#/jobs?queue=access-dead&status=DEAD', shown: page.locator(`tr[data-job="${jobs.dead.id}"]`) },
    { hash: '#/jobs?queue=access-open', shown: page.locator(`tr[data-job="${jobs.cancelled.id}"]`) },
    ...[jobs.dead, jobs.scheduled, jobs.cancelled].map((job) => ({
      hash: `#/jobs/${job.id}`,
      shown: page.locator('#job-id', { hasText: job.id }),
    })),
  ];

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await createRestTestApp(`dashboard_access_${platform}`, {
      platform,
      providers: [HandlerControls, ControlledHandler],
      httpOptions: {
        apiKeys: [
          { role: 'admin', key: ADMIN },
          { role: 'worker', key: WORKER },
          { role: 'producer', key: PRODUCER },
        ],
      },
    });
    t.app.get(HandlerControls).failing.add('access-dead');
    const dead = await submit({ type: 'TEST_CONTROLLED', payload: { name: 'access-dead' }, queue: 'access-dead' });
    await waitFor(async () => (await t.statusOf(dead.id)) === JobStatus.DEAD, { message: 'the job to be DEAD' });
    const scheduled = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'access-open', delayMs: 3_600_000 });
    const cancelled = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'access-open', delayMs: 3_600_000 });
    await post(`/jobs/${cancelled.id}/cancel`).expect(200);
    await post('/queues/access-paused/pause').expect(200);
    await submit({ type: 'TEST_RECORD', payload: {}, queue: 'access-paused' });
    jobs = { scheduled, cancelled, dead };
  }, ENSURE_CHROMIUM_TIMEOUT_MS + 60_000);

  beforeEach(async () => {
    ({ page, problems, close: closePage } = await openPage(browser, t.baseUrl));
  });

  afterEach(async () => {
    await closePage?.();
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });

  afterAll(async () => {
    t?.app.get(HandlerControls).releaseAll();
    await browser?.close();
    await t?.close();
  });

  it.each([
    ['producer', PRODUCER],
    ['worker', WORKER],
  ])('a %s key reads every view but is offered no button it may not press', async (_role, key) => {
    await page.goto('/dashboard#/queues');
    await useApiKey(page, key);
    for (const view of views()) {
      await page.goto(`/dashboard${view.hash}`);
      await view.shown.waitFor();
      expect({ view: view.hash, buttons: await page.locator(ACTIONS).count() }).toEqual({ view: view.hash, buttons: 0 });
    }
    // The views show the jobs all the same, and the id can still be copied.
    await page.goto('/dashboard#/jobs?queue=access-open');
    await page.locator(`tr[data-job="${jobs.scheduled.id}"] [data-status-badge="SCHEDULED"]`).waitFor();
    expect(await page.locator(`tr[data-job="${jobs.scheduled.id}"] button[data-action="copy-id"]`).count()).toBe(1);
    // The top bar says why.
    expect(await page.locator('#key-state').textContent()).toBe('Key in use · read-only');
  });

  it('an admin key is offered the action each view allows, and it works', async () => {
    await page.goto('/dashboard#/queues');
    await useApiKey(page, ADMIN);
    expect(await page.locator('#key-state').textContent()).toBe('Key in use · admin');
    const offered: Record<string, string[]> = {};
    for (const view of views()) {
      await page.goto(`/dashboard${view.hash}`);
      await view.shown.waitFor();
      offered[view.hash] = await actionsOn(page);
    }
    const [queues, deadList, openList, deadJob, scheduledJob, cancelledJob] = views().map((v) => offered[v.hash]);
    expect(queues).toContain('resume');
    expect(queues).toContain('pause');
    expect(deadList.sort()).toEqual(['retry', 'retry-matching']);
    expect(openList.sort()).toEqual(['cancel', 'retry']);
    expect({ deadJob, scheduledJob, cancelledJob }).toEqual({ deadJob: ['retry'], scheduledJob: ['cancel'], cancelledJob: ['retry'] });

    await page.goto('/dashboard#/queues');
    await page.click('tr[data-queue="access-paused"] button[data-action="resume"]');
    await waitFor(async () => !(await pausedInDb('access-paused')), { message: 'access-paused to be resumed' });
    await post('/queues/access-paused/pause').expect(200);
  });

  it('without a key the page says one is needed', async () => {
    await page.goto('/dashboard#/queues');
    await page.locator('[data-error="401"]', { hasText: 'needs an API key' }).waitFor();
    expect(await page.locator('#key-state').textContent()).toBe('No key');
  });

  it('a wrong key is told it is wrong, not that a key is needed', async () => {
    await page.goto('/dashboard#/queues');
    await page.fill('#api-key', `admin-${randomBytes(16).toString('hex')}`);
    await page.click('#key-form button[type=submit]');
    // The page still shows the previous test's "needs a key" error until it has asked with the new key.
    const error = page.locator('[data-error="401"]', { hasText: 'is wrong' });
    await error.waitFor();
    expect(await error.locator('p').textContent()).toBe(
      'The API key in use is wrong: the service does not know it. Paste a valid key in the top bar.',
    );
    expect(await page.locator('#key-state').textContent()).toBe('Wrong key');
    expect(await page.locator(ACTIONS).count()).toBe(0);

    // Replacing it with a valid key clears the error.
    await useApiKey(page, PRODUCER, 'Key in use · read-only');
    await page.locator('tr[data-queue="access-paused"]').waitFor();
  });

  it('the key is kept for the tab (sessionStorage), never in the URL', async () => {
    await page.goto('/dashboard#/queues');
    await useApiKey(page, PRODUCER);
    await page.locator('tr[data-queue="access-paused"]').waitFor();
    // A string, evaluated in the page: the tests are compiled without the DOM's types.
    expect(await page.evaluate("sessionStorage.getItem('conveyor.apiKey')")).toBe(PRODUCER);
    expect(page.url()).not.toContain(PRODUCER);
  });

  it('a key pasted and sent before the scripts have loaded stays out of the URL the browser asks for', async () => {
    // The form is on screen before its module script runs (a slow link, a script a proxy holds back): Enter then
    // submits the form the browser's own way, a GET with its named fields in the query string.
    let releaseScript = () => {};
    const held = new Promise<void>((resolve) => (releaseScript = resolve));
    await page.route('**/dashboard/app.js', async (route) => {
      await held;
      await route.continue().catch(() => undefined);
    });
    const asked: string[] = [];
    page.on('request', (req) => asked.push(req.url()));
    await page.goto('/dashboard#/queues', { waitUntil: 'commit' });
    await page.fill('#api-key', PRODUCER);
    await Promise.all([page.waitForEvent('framenavigated'), page.press('#api-key', 'Enter')]);
    releaseScript();
    expect(asked.filter((url) => url.includes(PRODUCER))).toEqual([]);
    expect(page.url()).not.toContain(PRODUCER);
  });
});
