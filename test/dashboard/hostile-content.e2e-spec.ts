import { randomBytes, randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { ENSURE_CHROMIUM_TIMEOUT_MS } from '../support/ensure-chromium';
import { launchBrowser, openPage, PageProblems, useApiKey } from './support/dashboard-browser';

const ADMIN = `admin-${randomBytes(16).toString('hex')}`;
/** RIGHT-TO-LEFT OVERRIDE: the text after it, up to the end of its paragraph, is laid out right to left. */
const RLO = '\u202e';
/** Markup that records in the page that it ran, were it ever parsed as HTML. */
const MARKUP = `<img src=x onerror="window.ran=1"><script>window.ran=2</script></script>{{constructor.constructor('window.ran=3')()}}`;

/**
 * Whether the first occurrence of `word` in the view is laid out left to right, as written: its first letter left of
 * its last. Evaluated in the page (the tests are compiled without the DOM's types).
 */
const readsLeftToRight = (word: string) => `(() => {
  const walker = document.createTreeWalker(document.getElementById('view'), NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode()); ) {
    const i = node.data.indexOf(${JSON.stringify(word)});
    if (i < 0) continue;
    const left = (k) => {
      const range = document.createRange();
      range.setStart(node, k);
      range.setEnd(node, k + 1);
      return range.getBoundingClientRect().left;
    };
    return left(i) < left(i + ${word.length - 1});
  }
  return null;
})()`;

/** Each fact of the job view, and whether it ends inside its card. */
const FACTS_INSIDE = `[...document.querySelectorAll('.facts dd')].map((dd) => ({
  fact: dd.dataset.fact,
  inside: dd.getBoundingClientRect().right <= dd.closest('.card').getBoundingClientRect().right,
}))`;

/**
 * The job view shows whatever the table holds, which producers, handlers and external workers write: markup in any
 * field stays text, direction controls in it do not turn the page's own words around, an error history of any length
 * and a payload of megabytes draw a bounded page, and a long line stays in its card. The rows are written straight to
 * the table, so no API check stands between them and the page. Driven in headless Chromium against the real app, on
 * both Nest platforms.
 */
describe.each(['express', 'fastify'] as const)('Dashboard with hostile job content on %s (headless Chromium)', (platform) => {
  let t: RestTestApp;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let closePage: () => Promise<void>;

  /** Stores a RUNNING job with `fields` (column: value) on top of the usual ones; answers its id. */
  const running = async (fields: Record<string, unknown>) => {
    const id = randomUUID();
    const columns = { id, queue: 'hostile', type: 'HOSTILE', payload: '{}', status: 'RUNNING', attempts: 1, ...fields };
    const names = Object.keys(columns);
    await t.sql.query(
      `INSERT INTO ${t.jobsTable} (${names.join(', ')}, started_at, locked_until)
       VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}, now(), now() + interval '1 hour')`,
      Object.values(columns),
    );
    return id;
  };
  const openJob = async (id: string) => {
    await page.goto(`/dashboard#/jobs/${id}`);
    await useApiKey(page, ADMIN);
    await page.locator('#job-id', { hasText: id }).waitFor();
  };

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await createRestTestApp(`dashboard_hostile_${platform}`, { platform, httpOptions: { apiKeys: [{ role: 'admin', key: ADMIN }] } });
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
    await t?.close();
  });

  it('markup in every field of a job shows as text and never runs', async () => {
    const id = await running({
      type: MARKUP,
      queue: MARKUP,
      payload: JSON.stringify({ html: MARKUP }),
      result: JSON.stringify({ html: MARKUP }),
      last_error: MARKUP,
      errors: JSON.stringify([{ attempt: 1, at: new Date().toISOString(), kind: 'failed', error: MARKUP, stack: MARKUP, worker: MARKUP }]),
      idempotency_key: MARKUP,
      unique_key: MARKUP,
      locked_by: MARKUP,
      progress: JSON.stringify({ percent: 50, data: { html: MARKUP } }),
    });
    await openJob(id);
    expect(await page.locator('.job-type').textContent()).toBe(MARKUP);
    expect(await page.locator('[data-fact="Held by"]').textContent()).toContain(MARKUP);
    expect(await page.evaluate(`[window.ran, document.querySelectorAll('#view img, #view script').length]`)).toEqual([undefined, 0]);
  });

  it("a direction override in a queue or worker name does not turn the page's own words after it around", async () => {
    const id = await running({ queue: `q${RLO}evil`, locked_by: `w${RLO}evil` });
    await openJob(id);
    // "in queue q‮evil, priority 0" in the timeline; "w‮evil until 28 Nov …" beside "Held by".
    expect(await page.evaluate(readsLeftToRight(', priority'))).toBe(true);
    expect(await page.evaluate(readsLeftToRight('until'))).toBe(true);
  });

  it('a job with 10,000 entries of error history draws the latest 100 and says so', async () => {
    const at = Date.now() - 3_600_000;
    const errors = Array.from({ length: 10_000 }, (_, i) => ({
      attempt: i + 1,
      at: new Date(at + i * 100).toISOString(),
      kind: 'retry-later',
      error: `not yet ${i + 1}`,
      worker: 'w1',
    }));
    const id = await running({ errors: JSON.stringify(errors) });
    await openJob(id);
    const attempts = await page
      .locator('#errors-table tbody tr')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-attempt')));
    expect(attempts).toEqual(Array.from({ length: 100 }, (_, i) => String(9_901 + i)));
    expect(await page.locator('#timeline li').count()).toBe(102); // Created, 100 entries, the attempt started
    expect(await page.locator('#errors-shown').textContent()).toContain('The latest 100 of 10000');
  });

  it('a payload and a result of megabytes draw their first 100,000 characters and say so', async () => {
    const rows = Array.from({ length: 40_000 }, (_, i) => ({ i, text: 'abcdefghijklmnopqrstuvwxyz' }));
    const id = await running({ payload: JSON.stringify({ rows }), result: JSON.stringify({ rows }) });
    await openJob(id);
    const whole = JSON.stringify({ rows }, null, 2);
    for (const block of ['payload', 'result']) {
      expect(await page.locator(`#${block}`).textContent()).toBe(`${whole.slice(0, 100_000)}…`);
      expect(await page.locator(`#${block}-shown`).textContent()).toContain(`The first 100000 of ${whole.length} characters`);
    }
  });

  it('a long line of progress data or a long key scrolls in its card instead of spilling over the card beside it', async () => {
    const line = 'x'.repeat(2000);
    const id = await running({ unique_key: `k${line}`, progress: JSON.stringify({ percent: 10, data: { line } }) });
    await openJob(id);
    const facts = (await page.evaluate(FACTS_INSIDE)) as { fact: string; inside: boolean }[];
    expect(facts.filter((f) => !f.inside)).toEqual([]);
    expect(facts.length).toBeGreaterThan(5);
  });
});
