import { Browser, BrowserContextOptions, chromium, Page } from 'playwright-core';
import { ensureChromium } from '../../support/ensure-chromium';

/** Flags for a headless Chromium in a container: no sandbox (root), no GPU, nothing phoning home. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Installs Chromium if needed (once), then launches it headless. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = await ensureChromium();
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}

/** What went wrong inside a page: uncaught errors and Content-Security-Policy refusals. */
export interface PageProblems {
  errors: string[];
  cspViolations: string[];
}

/**
 * A fresh page (its own context, so sessionStorage starts empty) that records uncaught errors and CSP
 * violations, for the tests to assert there were none. `options` override the desktop defaults (a phone's
 * viewport, a dark colour scheme, clipboard permissions).
 */
export async function openPage(
  browser: Browser,
  baseUrl: string,
  options: BrowserContextOptions = {},
): Promise<{ page: Page; problems: PageProblems; close: () => Promise<void> }> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width: 1360, height: 900 },
    locale: 'en-GB',
    timezoneId: 'UTC',
    ...options,
  });
  const page = await context.newPage();
  const problems: PageProblems = { errors: [], cspViolations: [] };
  page.on('pageerror', (err) => problems.errors.push(err.message));
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) problems.cspViolations.push(msg.text());
  });
  return { page, problems, close: () => context.close() };
}

/** Pastes an API key into the top bar, as a user would, and waits until the page has checked what it may do. */
export async function useApiKey(page: Page, key: string, expectState = 'Key in use'): Promise<void> {
  await page.fill('#api-key', key);
  await page.click('#key-form button[type=submit]');
  await page.locator('#key-state', { hasText: expectState }).waitFor();
}
