import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnService, startServiceProcess } from '../support/service-process';
import { createTestSchema, TestSchema } from '../support/test-database';

/**
 * The service (apps/server) refusing to start: it exits 1 naming the problem, soon, and without having claimed a job.
 */
describe('service start-up that cannot succeed', () => {
  let schema: TestSchema;
  let outbox: string;

  beforeAll(async () => {
    schema = await createTestSchema('service_start');
    outbox = mkdtempSync(join(tmpdir(), 'conveyor-start-outbox-'));
  });

  afterAll(async () => {
    await schema?.drop();
    rmSync(outbox, { recursive: true, force: true });
  });

  it('stops on a port in use before the worker claims anything, exiting 1 with the reason', async () => {
    const env = { DATABASE_URL: process.env.CONVEYOR_TEST_DATABASE_URL!, DATABASE_SCHEMA: schema.schema, OUTBOX_DIR: outbox };
    // An API-only instance holds the port and takes the jobs the second instance would claim.
    const holder = await startServiceProcess({ env: { ...env, RUN_WORKERS: 'false' } });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${holder.baseUrl}/jobs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'SEND_EMAIL', payload: { to: 'port@example.test', subject: `waiting ${i}` } }),
        });
        ids.push(((await res.json()) as { id: string }).id);
      }
      const second = spawnService({ env: { ...env, PORT: new URL(holder.baseUrl).port, POLL_INTERVAL_MS: '50' } });
      expect(await second.exited).toBe(1);
      expect(second.output()).toMatch(/EADDRINUSE/);
      const jobs = await Promise.all(
        ids.map(async (id) => (await (await fetch(`${holder.baseUrl}/jobs/${id}`)).json()) as { status: string; attempts: number }),
      );
      expect(jobs.map((j) => [j.status, j.attempts])).toEqual(ids.map(() => ['PENDING', 0]));
    } finally {
      await holder.stop();
    }
  }, 60_000);

  it("stops at once on a database that does not exist, with PostgreSQL's reason, without retrying", async () => {
    const url = new URL(process.env.CONVEYOR_TEST_DATABASE_URL!);
    url.pathname = '/conveyor_no_such_database';
    const service = spawnService({ env: { DATABASE_URL: url.toString(), OUTBOX_DIR: outbox, LOG_LEVEL: 'log' } });
    expect(await service.exited).toBe(1);
    expect(service.output()).toMatch(/database \\?"conveyor_no_such_database\\?" does not exist/);
    expect(service.output()).not.toMatch(/Retrying \(2\)/);
  }, 60_000);

  it('stops on a DATABASE_URL that is no postgres:// URL, naming the variable', async () => {
    const service = spawnService({ env: { DATABASE_URL: 'not-a-url', OUTBOX_DIR: outbox } });
    expect(await service.exited).toBe(1);
    expect(service.output()).toMatch(/DATABASE_URL.*must be a connection URL/);
  }, 60_000);

  it('stops on a DATABASE_URL whose password has a bare "%", naming the variable and the fix, never the password', async () => {
    const url = new URL(process.env.CONVEYOR_TEST_DATABASE_URL!);
    const service = spawnService({
      env: { DATABASE_URL: `postgres://conveyor:50%off@${url.host}${url.pathname}`, OUTBOX_DIR: outbox },
    });
    expect(await service.exited).toBe(1);
    expect(service.output()).toMatch(/DATABASE_URL: its user name or password has a "%" .* %25/);
    expect(service.output()).not.toMatch(/URI malformed|50%off/);
  }, 60_000);

  it.each([
    [
      'a rate-limit window past what the HTTP module takes',
      { RATE_LIMIT_WINDOW_MS: '3000000000' },
      'RATE_LIMIT_WINDOW_MS: must be between 1 and 86400000',
    ],
    [
      'an embedded server port that is no number',
      { DATABASE_URL: '', EMBEDDED_PG_PORT: 'abc' },
      'EMBEDDED_PG_PORT: expected an integer, got "abc"',
    ],
  ])(
    'stops on %s with one line naming the variable, before any database work',
    async (_case, env, message) => {
      const service = spawnService({ env: { DATABASE_URL: process.env.CONVEYOR_TEST_DATABASE_URL!, OUTBOX_DIR: outbox, ...env } });
      expect(await service.exited).toBe(1);
      expect(service.output().trim()).toBe(`Invalid environment variable ${message}`);
    },
    60_000,
  );
});
