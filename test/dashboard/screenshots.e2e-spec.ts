import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { Job, JobStatus } from '@conveyor/core';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { ENSURE_CHROMIUM_TIMEOUT_MS } from '../support/ensure-chromium';
import { waitFor } from '../support/wait-for';
import { launchBrowser, openPage, useApiKey } from './support/dashboard-browser';
import { DEMO_PROVIDERS, DemoGate } from './support/demo-handlers';

/** Set to regenerate the screenshots in the README and docs/api.md: `DASHBOARD_SCREENSHOTS=1 npx jest test/dashboard/screenshots`. */
const ENABLED = process.env.DASHBOARD_SCREENSHOTS === '1';
const OUT_DIR = join(__dirname, '..', '..', 'docs', 'screenshots');
const ADMIN = `admin-${randomBytes(16).toString('hex')}`;

/**
 * Not a test of behaviour: it seeds a realistic-looking service and saves a picture of each page under
 * docs/screenshots. Skipped unless DASHBOARD_SCREENSHOTS=1, so test runs never write to the work tree.
 */
(ENABLED ? describe : describe.skip)('Dashboard screenshots (DASHBOARD_SCREENSHOTS=1)', () => {
  let t: RestTestApp;
  let browser: Browser;

  const post = (path: string, body: unknown = {}) =>
    t
      .api()
      .post(path)
      .set('Authorization', `Bearer ${ADMIN}`)
      .send(body as object);
  const submit = async (body: Record<string, unknown>) => (await post('/jobs', body).expect(201)).body as Job;
  const settled = (ids: string[]) =>
    waitFor(async () => (await t.rows(`id = ANY($1) AND status IN ('COMPLETED','DEAD')`, [ids])).length === ids.length, {
      timeoutMs: 30_000,
      message: 'demo jobs to finish',
    });

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await createRestTestApp('dashboard_screens', {
      providers: DEMO_PROVIDERS,
      httpOptions: { apiKeys: [{ role: 'admin', key: ADMIN }] },
      engine: {
        schedules: [
          { name: 'nightly-revenue', type: 'GENERATE_REPORT', cron: '0 2 * * *', timezone: 'Europe/Paris', payload: { report: 'revenue' } },
          { name: 'weekly-digest', type: 'SEND_EMAIL', cron: '0 8 * * 1', payload: { to: 'team@example.com', subject: 'Weekly digest' } },
          { name: 'hourly-sync', type: 'SEND_WEBHOOK', cron: '@hourly', payload: { url: 'https://hooks.example.com/sync', event: 'sync' } },
        ],
      },
    });
    mkdirSync(OUT_DIR, { recursive: true });
  }, ENSURE_CHROMIUM_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    t?.app.get(DemoGate).release();
    await browser?.close();
    await t?.close();
  });

  it('saves the overview, job list, job detail, schedules, instances and API docs', async () => {
    const gate = t.app.get(DemoGate);
    const finished: string[] = [];
    const people = ['ada', 'grace', 'alan', 'edsger', 'barbara', 'ken', 'margaret', 'linus', 'donald', 'frances'];
    for (let i = 0; i < 46; i++) {
      const to = `${people[i % people.length]}@example.com`;
      finished.push(
        (
          await submit({
            type: 'SEND_EMAIL',
            payload: { to, subject: 'Your receipt', template: 'receipt' },
            idempotencyKey: `receipt-${1000 + i}`,
          })
        ).id,
      );
    }
    for (let i = 0; i < 28; i++) {
      finished.push(
        (
          await submit({
            type: 'SEND_WEBHOOK',
            payload: { url: 'https://hooks.example.com/orders', event: 'order.paid', orderId: 5000 + i },
          })
        ).id,
      );
    }
    for (let i = 0; i < 3; i++) {
      gate.failures.set(`order-${6100 + i}-shipped`, { times: 9, error: 'Webhook answered 502 Bad Gateway' });
      finished.push(
        (
          await submit({
            type: 'SEND_WEBHOOK',
            payload: { url: 'https://partner.example.net/callback', event: 'order.shipped', orderId: 6100 + i },
            idempotencyKey: `order-${6100 + i}-shipped`,
          })
        ).id,
      );
    }
    for (let i = 0; i < 17; i++) {
      finished.push((await submit({ type: 'CHARGE_CARD', payload: { customer: `cus_${7300 + i}`, amount: 1990 + i * 100 } })).id);
    }
    gate.failures.set('invoice-INV-2026-0412', { times: 2, error: 'Card processor timed out after 10000 ms (gateway 504)' });
    const flaky = await submit({
      type: 'CHARGE_CARD',
      payload: { customer: 'cus_8841', amount: 4900, currency: 'EUR', invoice: 'INV-2026-0412' },
      idempotencyKey: 'invoice-INV-2026-0412',
    });
    finished.push(flaky.id);
    gate.failures.set('invoice-INV-2026-0419', { times: 9, error: 'Card declined: insufficient funds' });
    finished.push(
      (
        await submit({
          type: 'CHARGE_CARD',
          payload: { customer: 'cus_9102', amount: 12900, currency: 'EUR', invoice: 'INV-2026-0419' },
          idempotencyKey: 'invoice-INV-2026-0419',
          maxAttempts: 1,
        })
      ).id,
    );
    await settled(finished);

    // Spread the finished jobs over the last quarter hour, so the throughput chart has a shape.
    await t.sql.query(
      `
      UPDATE ${t.jobsTable} SET
        finished_at = now() - (power(random(), 1.6) * interval '14 minutes'),
        created_at = now() - interval '15 minutes'
      WHERE status IN ('COMPLETED','DEAD') AND id <> $1`,
      [flaky.id],
    );
    await t.sql.query(
      `UPDATE ${t.jobsTable} SET started_at = finished_at - random() * interval '2 seconds' WHERE status IN ('COMPLETED','DEAD') AND id <> $1`,
      [flaky.id],
    );

    // Work in flight: two reports running, a backlog in the paused reports queue, scheduled charges.
    for (let i = 0; i < 2; i++) await submit({ type: 'GENERATE_REPORT', payload: { report: 'monthly-revenue', month: `2026-${i + 9}` } });
    await waitFor(async () => (await t.rows(`status = 'RUNNING'`)).length === 2, { message: 'reports to run' });
    await post('/queues/reports/pause').expect(200);
    for (let i = 0; i < 9; i++)
      await submit({
        type: 'GENERATE_REPORT',
        payload: { report: 'customer-export', segment: `region-${i}` },
        runAt: new Date(Date.now() - (4 + i) * 60_000).toISOString(),
      });
    for (let i = 0; i < 5; i++)
      await submit({ type: 'CHARGE_CARD', payload: { customer: `cus_${9200 + i}`, amount: 990 }, delayMs: (i + 1) * 3_600_000 });
    for (let i = 0; i < 2; i++)
      await submit({ type: 'SEND_EMAIL', payload: { to: 'ops@example.com', subject: 'Digest' }, delayMs: 86_400_000 });
    expect(await t.statusOf(flaky.id)).toBe(JobStatus.COMPLETED);

    const { page, problems, close } = await openPage(browser, t.baseUrl);
    try {
      await page.goto('/dashboard#/queues');
      await useApiKey(page, ADMIN);
      await page.locator('tr[data-queue="webhooks"]').waitFor();
      await page.screenshot({ path: join(OUT_DIR, 'dashboard-queues.png'), fullPage: true });

      await page.goto('/dashboard#/jobs?queue=webhooks');
      await page.locator('#jobs-table [data-status-badge="DEAD"]').first().waitFor();
      await page.screenshot({ path: join(OUT_DIR, 'dashboard-jobs.png') });

      await page.goto(`/dashboard#/jobs/${flaky.id}`);
      await page.locator('#errors-table').waitFor();
      await page.screenshot({ path: join(OUT_DIR, 'dashboard-job.png'), fullPage: true });

      const [report] = await t.rows(`status = 'RUNNING' AND type = 'GENERATE_REPORT'`);
      await page.goto(`/dashboard#/jobs/${report.id as string}`);
      await page.locator('#progress').waitFor();
      await page.screenshot({ path: join(OUT_DIR, 'dashboard-job-running.png') });

      await post('/schedules/hourly-sync/pause').expect(200);
      await page.goto('/dashboard#/schedules');
      await page.locator('[data-schedule="hourly-sync"]').waitFor();
      await page.screenshot({ path: join(OUT_DIR, 'dashboard-schedules.png') });

      await page.goto('/dashboard#/instances');
      await page.locator('#instances-table tbody tr').first().waitFor();
      await page.screenshot({ path: join(OUT_DIR, 'dashboard-instances.png') });

      await page.goto('/docs');
      await page.locator('.swagger-ui .opblock').first().waitFor();
      await page.screenshot({ path: join(OUT_DIR, 'api-docs.png') });
      expect(problems).toEqual({ errors: [], cspViolations: [] });
    } finally {
      await close();
    }
  });

  it('saves the job list on a phone in the dark colour scheme', async () => {
    const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, colorScheme: 'dark' as const };
    const { page, problems, close } = await openPage(browser, t.baseUrl, phone);
    try {
      await page.goto('/dashboard#/jobs?queue=billing');
      await useApiKey(page, ADMIN);
      await page.locator('#jobs-table [data-status-badge="SCHEDULED"]').first().waitFor();
      await page.screenshot({ path: join(OUT_DIR, 'dashboard-phone-dark.png') });
      expect(problems).toEqual({ errors: [], cspViolations: [] });
    } finally {
      await close();
    }
  });
});
