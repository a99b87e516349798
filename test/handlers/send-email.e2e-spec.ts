import { Job, JobStatus, JobValidationError } from '@conveyor/core';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppSettings, loadAppConfig } from '../../apps/server/src/config/app-config';
import { APP_SETTINGS } from '../../apps/server/src/config/app-settings.token';
import { SendEmailHandler } from '../../apps/server/src/handlers/send-email.handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { parseMailMessage } from './mail-message';
import { SmtpTestServer, startSmtpTestServer } from './smtp-test-server';

const REFUSED = 'refused@example.com';
const BUSY = 'busy@example.com';

/** The service's defaults, as loadAppConfig gives them without any environment, with `overrides`. */
function appSettings(overrides: Partial<AppSettings>): AppSettings {
  return { ...loadAppConfig({}).app, ...overrides };
}

async function jobIn(t: TestApp, id: string, ...statuses: JobStatus[]): Promise<Job> {
  return waitFor(
    async () => {
      const job = await t.jobs.get(id);
      return statuses.includes(job.status) && job;
    },
    { message: `job ${id} to be ${statuses.join(' or ')}` },
  );
}

const FINISHED = [JobStatus.COMPLETED, JobStatus.DEAD, JobStatus.CANCELLED];

/** SEND_EMAIL through the real engine: SMTP delivery and its failures, the outbox fallback, payload checks. */
describe('SEND_EMAIL handler', () => {
  describe('with an SMTP server', () => {
    let schema: TestSchema;
    let smtp: SmtpTestServer;
    let t: TestApp;

    beforeAll(async () => {
      schema = await createTestSchema('send_email');
      smtp = await startSmtpTestServer({ [REFUSED]: 550, [BUSY]: 451 });
      t = await createTestApp({
        schema: schema.schema,
        providers: [
          SendEmailHandler,
          { provide: APP_SETTINGS, useValue: appSettings({ smtpUrl: smtp.url, emailFrom: 'sender@example.com' }) },
        ],
        // A retry would come a minute later, so a job that failed once stays RETRYING while it is checked.
        engine: { backoff: { baseMs: 60_000, jitter: 0 } },
        http: false,
      });
    });
    afterAll(async () => {
      await t?.close();
      await smtp?.close();
      await schema?.drop();
    });

    it('delivers the message and stores the SMTP outcome', async () => {
      const job = await t.jobs.enqueue('SEND_EMAIL', { to: 'alice@example.com', subject: 'Your report', text: 'It is ready.' });
      const done = await jobIn(t, job.id, ...FINISHED);

      expect(done).toMatchObject({ status: JobStatus.COMPLETED, queue: 'emails', attempts: 1, lastError: null });
      expect(done.result).toEqual({ transport: 'smtp', messageId: `<${job.id}@conveyor>`, accepted: ['alice@example.com'], rejected: [] });
      const mail = smtp.received.find((m) => m.raw.includes(job.id));
      expect(mail).toMatchObject({ mailFrom: 'sender@example.com', rcptTo: ['alice@example.com'] });
      const message = parseMailMessage(mail!.raw);
      expect(message.headers.get('to')).toBe('alice@example.com');
      expect(message.headers.get('from')).toBe('sender@example.com');
      expect(message.headers.get('subject')).toBe('Your report');
      expect(message.headers.get('message-id')).toBe(`<${job.id}@conveyor>`);
      expect(message.body.trim()).toBe('It is ready.');
    });

    it('a 5xx refusal is permanent: DEAD after one attempt', async () => {
      const before = smtp.received.length;
      const { job } = await t.jobs.submit({ type: 'SEND_EMAIL', payload: { to: REFUSED, subject: 'Hello', text: 'x' } });
      const dead = await jobIn(t, job.id, ...FINISHED);

      expect(dead).toMatchObject({ status: JobStatus.DEAD, attempts: 1, snoozes: 0 });
      expect(dead.lastError).toMatch(/^PermanentJobError: SMTP refused the message: .*550/);
      expect(dead.lastError).toContain(REFUSED);
      expect(dead.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'permanent' })]);
      expect(smtp.received.length).toBe(before);
    });

    it('a 4xx refusal is temporary: RETRYING with one attempt used and the error in the history', async () => {
      const { job } = await t.jobs.submit({ type: 'SEND_EMAIL', payload: { to: BUSY, subject: 'Hello', text: 'x' } });
      const retrying = await jobIn(t, job.id, JobStatus.RETRYING, ...FINISHED);

      expect(retrying).toMatchObject({ status: JobStatus.RETRYING, attempts: 1, snoozes: 0 });
      expect(retrying.lastError).toContain('451');
      expect(retrying.lastError).not.toContain('PermanentJobError');
      expect(retrying.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'failed', error: expect.stringContaining('451') })]);
      expect(retrying.runAt.getTime()).toBeGreaterThan(Date.now() + 30_000);
    });

    it.each([
      ['a bad address', { to: 'not-an-address', subject: 'Hi' }, 'payload.to'],
      ['a missing subject', { to: 'alice@example.com', text: 'x' }, 'payload.subject'],
      ['an empty subject', { to: 'alice@example.com', subject: '' }, 'payload.subject'],
      ['an unknown field', { to: 'alice@example.com', subject: 'Hi', cc: 'bob@example.com' }, 'payload.cc'],
    ])('refuses %s at submission, naming the field, and stores nothing', async (_case, payload, field) => {
      const count = async () => (await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`)).rows[0].n as number;
      const before = await count();

      const error = await t.jobs.submit({ type: 'SEND_EMAIL', payload }).catch((err: unknown) => err);

      expect(error).toBeInstanceOf(JobValidationError);
      expect((error as JobValidationError).status).toBe(400);
      expect((error as JobValidationError).message).toContain(field);
      expect((error as JobValidationError).details).toEqual([expect.objectContaining({ field })]);
      expect(await count()).toBe(before);
    });
  });

  describe('without SMTP', () => {
    let schema: TestSchema;
    let outbox: string;
    let t: TestApp;

    beforeAll(async () => {
      schema = await createTestSchema('send_email_outbox');
      outbox = await mkdtemp(join(tmpdir(), 'conveyor-outbox-'));
      t = await createTestApp({
        schema: schema.schema,
        providers: [SendEmailHandler, { provide: APP_SETTINGS, useValue: appSettings({ smtpUrl: undefined, outboxDir: outbox }) }],
        http: false,
      });
    });
    afterAll(async () => {
      await t?.close();
      await schema?.drop();
      if (outbox) await rm(outbox, { recursive: true, force: true });
    });

    it('writes the message as an .eml file to the outbox and says so in the result', async () => {
      const job = await t.jobs.enqueue('SEND_EMAIL', { to: 'carol@example.com', subject: 'Outbox check', html: '<p>Hi Carol</p>' });
      const done = await jobIn(t, job.id, ...FINISHED);

      const path = join(outbox, `${job.id}.eml`);
      expect(done).toMatchObject({ status: JobStatus.COMPLETED, attempts: 1 });
      expect(done.result).toEqual({ transport: 'outbox', path, note: expect.stringContaining('SMTP_URL') });
      const message = parseMailMessage(await readFile(path, 'utf8'));
      expect(message.headers.get('subject')).toBe('Outbox check');
      expect(message.headers.get('to')).toBe('carol@example.com');
      expect(message.headers.get('message-id')).toBe(`<${job.id}@conveyor>`);
      expect(message.headers.get('content-type')).toMatch(/^text\/html/);
      expect(message.body).toContain('<p>Hi Carol</p>');
    });
  });
});
