import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL_ENV } from '../support/test-database-env';

/**
 * A job database created with another encoding than UTF8 (`createdb -E LATIN1`): a payload within that encoding is
 * stored and read back as sent; one with a character outside it is refused with a 400 that says why, not a 500.
 */
describe('a LATIN1 job database', () => {
  const database = `conveyor_t_latin1_${randomBytes(4).toString('hex')}`;
  const adminUrl = process.env[TEST_DATABASE_URL_ENV]!;
  let app: TestApp;

  const admin = async (sql: string) => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const submit = (subject: string) =>
    fetch(`${app.baseUrl}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'TEST_RECORD', payload: { result: subject } }),
    });

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${database} ENCODING 'LATIN1' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'`);
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    // Nothing runs: the handler is there for its job type.
    const providers = [{ provide: RECORDER_POOL, useValue: null }, RecordingHandler];
    app = await createTestApp({ schema: 'public', url: url.toString(), providers, listen: true, engine: { runWorkers: false } });
  });

  afterAll(async () => {
    await app?.close();
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it('stores a payload within LATIN1 and answers it as sent', async () => {
    const res = await submit('café crème');
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const { rows } = await app.sql.query<{ subject: string }>(`SELECT payload->>'result' AS subject FROM ${app.jobsTable} WHERE id = $1`, [
      id,
    ]);
    expect(rows).toEqual([{ subject: 'café crème' }]);
  });

  it('refuses a payload with a character outside LATIN1 with a 400 naming the encoding, and stores nothing', async () => {
    const res = await submit('日本');
    const body = (await res.json()) as { statusCode: number; message: string };
    expect([res.status, body.statusCode]).toEqual([400, 400]);
    expect(body.message).toContain('cannot store');
    expect(body.message).toContain('has no equivalent in encoding "LATIN1"');
    const { rows } = await app.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${app.jobsTable}`);
    expect(rows).toEqual([{ n: 1 }]);
  });
});
