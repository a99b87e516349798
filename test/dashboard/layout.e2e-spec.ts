import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { Injectable } from '@nestjs/common';
import { Job, JobHandler, JobStatus } from '@conveyor/core';
import { ControlledHandler, HandlerControls } from '../http/support/controlled.handler';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { ENSURE_CHROMIUM_TIMEOUT_MS } from '../support/ensure-chromium';
import { waitFor } from '../support/wait-for';
import { launchBrowser, openPage, useApiKey } from './support/dashboard-browser';

const ADMIN = `admin-${randomBytes(16).toString('hex')}`;
/** The longest queue name and job type the API takes: single words of 200 characters, nowhere to wrap. */
const LONGEST_QUEUE = `q${'_long'.repeat(39)}_end`;
const LONGEST_TYPE = `T${'_LONG'.repeat(39)}_END`;
@Injectable()
@JobHandler(LONGEST_TYPE)
class LongestTypeHandler {
  handle(): void {}
}

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 };

/** The key field's placeholder width and the room inside the field, in px (evaluated in the page). */
const FIELD_ROOM = `(() => {
  const input = document.getElementById('api-key');
  const style = getComputedStyle(input);
  const text = document.createElement('canvas').getContext('2d');
  text.font = style.font;
  return [text.measureText(input.placeholder).width, input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)];
})()`;

type Rgb = [number, number, number];

/** WCAG relative luminance of a CSS `rgb(…)`/`rgba(…)` colour: 0 is black, 1 white. */
function luminance(css: string): number {
  const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number) as Rgb;
  const lin = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG contrast ratio of two colours (1 to 21). */
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The dashboard on a phone (390 px wide) and in the browser's dark colour scheme, in headless Chromium: every
 * view fits the width with the key field whole, and prefers-color-scheme: dark gives dark surfaces with
 * readable text. On both Nest platforms, like every dashboard test.
 */
describe.each(['express', 'fastify'] as const)('Dashboard layout on %s (headless Chromium)', (platform) => {
  let t: RestTestApp;
  let browser: Browser;
  let job: Job;
  let longest: Job;

  const post = (path: string, body: unknown = {}) =>
    t
      .api()
      .post(path)
      .set('Authorization', `Bearer ${ADMIN}`)
      .send(body as object);
  const submit = async (body: Record<string, unknown>) => (await post('/jobs', body).expect(201)).body as Job;

  /** The views, each with what must be on it before it is measured. */
  const views = () => [
    { hash: '#/queues', shown: '#queues-table' },
    { hash: '#/jobs', shown: '#jobs-table' },
    { hash: `#/jobs/${job.id}`, shown: '#errors-table' },
  ];

  /** Opens the dashboard in a fresh context, pastes the key, runs `check`, and requires no page error. */
  async function withPage(options: BrowserContextOptions, check: (page: Page) => Promise<void>): Promise<void> {
    const { page, problems, close } = await openPage(browser, t.baseUrl, options);
    try {
      await page.goto('/dashboard#/queues');
      await useApiKey(page, ADMIN);
      await check(page);
    } finally {
      await close();
    }
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  }

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await createRestTestApp(`dashboard_layout_${platform}`, {
      platform,
      providers: [HandlerControls, ControlledHandler, LongestTypeHandler],
      httpOptions: { apiKeys: [{ role: 'admin', key: ADMIN }] },
    });
    // A DEAD job with a long error and payload, so the job view has every section filled.
    const name = `layout-${'x'.repeat(120)}`;
    t.app.get(HandlerControls).failing.add(name);
    job = await submit({
      type: 'TEST_CONTROLLED',
      payload: { name },
      queue: 'a-rather-long-queue-name-for-a-phone',
      uniqueKey: `report:${'y'.repeat(80)}`,
    });
    await waitFor(async () => (await t.statusOf(job.id)) === JobStatus.DEAD, { message: 'the job to be DEAD' });
    await submit({ type: 'TEST_RECORD', payload: {}, queue: 'layout-scheduled', delayMs: 3_600_000 });
    longest = await submit({ type: LONGEST_TYPE, payload: {}, queue: LONGEST_QUEUE, delayMs: 3_600_000 });
  }, ENSURE_CHROMIUM_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    t?.app.get(HandlerControls).releaseAll();
    await browser?.close();
    await t?.close();
  });

  it('at 390 px no view scrolls sideways, and the key field and its buttons are whole on screen', async () => {
    await withPage(PHONE, async (page) => {
      for (const view of views()) {
        await page.goto(`/dashboard${view.hash}`);
        await page.locator(view.shown).waitFor();
        // A string, evaluated in the page: the tests are compiled without the DOM's types.
        const width = (await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]')) as [
          number,
          number,
        ];
        expect({ view: view.hash, scrollWidth: width[0] }).toEqual({ view: view.hash, scrollWidth: width[1] });
        for (const selector of ['#api-key', '#key-form button[type=submit]', '#key-clear', '#key-state']) {
          const box = (await page.locator(selector).boundingBox())!;
          expect({ view: view.hash, selector, inside: box.x >= 0 && box.x + box.width <= 390 }).toEqual({
            view: view.hash,
            selector,
            inside: true,
          });
        }
        // Wide enough for its hint ("•••••••• (paste to replace)" once a key is set) to show whole.
        const [hint, room] = (await page.evaluate(FIELD_ROOM)) as [number, number];
        expect({ view: view.hash, hintFits: hint <= room }).toEqual({ view: view.hash, hintFits: true });
      }
      // The key field still takes a key at that width.
      expect(await page.locator('#key-state').textContent()).toBe('Key in use · admin');
    });
  });

  it.each([1280, 1366])('at %i px (a laptop) the top bar wraps rather than push the page sideways', async (width) => {
    await withPage({ viewport: { width, height: 800 } }, async (page) => {
      await page.locator('#key-state', { hasText: 'Key in use · admin' }).waitFor();
      const [scrollWidth, clientWidth] = (await page.evaluate(
        '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
      )) as [number, number];
      expect(scrollWidth).toBe(clientWidth);
      for (const selector of ['#key-clear', '#key-state']) {
        const box = (await page.locator(selector).boundingBox())!;
        expect({ selector, inside: box.x + box.width <= width }).toEqual({ selector, inside: true });
      }
    });
  });

  it.each([1280, 1366])('at %i px the longest queue name and job type wrap rather than push a view sideways', async (width) => {
    await withPage({ viewport: { width, height: 800 } }, async (page) => {
      for (const view of [
        { hash: '#/queues', shown: `#queues-table tr[data-queue="${LONGEST_QUEUE}"]` },
        { hash: `#/jobs?queue=${LONGEST_QUEUE}`, shown: `#jobs-table tbody tr` },
        { hash: `#/jobs/${longest.id}`, shown: '.facts' },
      ]) {
        await page.goto(`/dashboard${view.hash}`);
        await page.locator(view.shown).first().waitFor();
        // Strings, evaluated in the page: the tests are compiled without the DOM's types.
        const [scrollWidth, clientWidth] = (await page.evaluate(
          '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
        )) as [number, number];
        expect({ view: view.hash, scrollWidth }).toEqual({ view: view.hash, scrollWidth: clientWidth });
        // Nor does a table scroll inside its card: its last column is on screen.
        const right = (await page.evaluate(
          `Math.max(0, ...[...document.querySelectorAll('.table th')].map((th) => th.getBoundingClientRect().right))`,
        )) as number;
        expect({ view: view.hash, inside: right <= clientWidth }).toEqual({ view: view.hash, inside: true });
      }
    });
  });

  it("under the browser's dark preference the page is dark with readable text; under light it stays light", async () => {
    const colours = (page: Page, selector: string, property: string) =>
      page.evaluate(
        `getComputedStyle(document.querySelector(${JSON.stringify(selector)}))[${JSON.stringify(property)}]`,
      ) as Promise<string>;
    const read = async (page: Page) => {
      await page.goto(`/dashboard#/jobs/${job.id}`);
      await page.locator('#errors-table').waitFor();
      return {
        body: await colours(page, 'body', 'backgroundColor'),
        text: await colours(page, 'body', 'color'),
        card: await colours(page, '.card', 'backgroundColor'),
        muted: await colours(page, '.facts dt', 'color'),
        button: await colours(page, 'button[data-action="retry"]', 'backgroundColor'),
        tableHead: await colours(page, '#errors-table th', 'backgroundColor'),
      };
    };
    await withPage({ colorScheme: 'dark' }, async (page) => {
      const dark = await read(page);
      for (const surface of ['body', 'card', 'tableHead'] as const)
        expect({ surface, dark: luminance(dark[surface]) < 0.05 }).toEqual({ surface, dark: true });
      expect(contrast(dark.text, dark.card)).toBeGreaterThanOrEqual(7);
      expect(contrast(dark.muted, dark.card)).toBeGreaterThanOrEqual(4.5);
      expect(contrast('rgb(255, 255, 255)', dark.button)).toBeGreaterThanOrEqual(4.5);
      // The form controls follow the scheme too (color-scheme), so the filters are dark.
      await page.goto('/dashboard#/jobs');
      await page.locator('#job-filters input[name="queue"]').waitFor();
      expect(luminance(await colours(page, '#job-filters input[name="queue"]', 'backgroundColor'))).toBeLessThan(0.05);
    });
    await withPage({ colorScheme: 'light' }, async (page) => {
      const light = await read(page);
      for (const surface of ['body', 'card', 'tableHead'] as const)
        expect({ surface, light: luminance(light[surface]) > 0.8 }).toEqual({ surface, light: true });
      expect(contrast(light.text, light.card)).toBeGreaterThanOrEqual(7);
    });
  });
});
