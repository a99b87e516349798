import { Pool } from 'pg';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { openSse } from './support/sse-client';

/**
 * A subscriber that arrives while the database is away cannot take the live-watch lease. Its stream is ended, so its
 * client reconnects (with Last-Event-ID) instead of waiting on a stream nobody announces to; and it is not counted as
 * a holder, so once every later subscriber has left, the lease is given up and writers stop announcing.
 */
describe('Live events: a subscriber during a database outage', () => {
  const base = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let proxy: TcpProxy;
  let app: TestApp;
  let direct: Pool;

  const leases = async () => Number((await direct.query(`SELECT count(*) FROM ${app.db.tables.liveWatch}`)).rows[0].count);

  beforeAll(async () => {
    schema = await createTestSchema('live_lease_outage');
    const target = new URL(base);
    proxy = await new TcpProxy(target.hostname, Number(target.port || 5432)).start();
    app = await createTestApp({
      schema: schema.schema,
      url: proxy.urlFor(base),
      appName: 'live-lease-outage',
      poolTimeoutMs: 500,
      listen: true,
      engine: { runWorkers: false },
    });
    direct = new Pool({ connectionString: base, max: 1 });
  });

  afterAll(async () => {
    proxy?.restore();
    await app?.close();
    await direct?.end();
    await proxy?.stop();
    await schema?.drop();
  });

  it('has its stream ended, and the lease is given up once the subscribers that came after it leave', async () => {
    proxy.cut();
    const early = await openSse(`${app.baseUrl}/events`);
    await waitFor(() => early.ended, { message: 'the stream opened during the outage to be ended' });
    proxy.restore();

    const later = await openSse(`${app.baseUrl}/events`);
    await waitFor(async () => (await leases()) === 1, { message: 'the later subscriber to take the lease' });
    later.close();
    early.close();
    await waitFor(async () => (await leases()) === 0, { message: 'the lease to be given up' });
  });
});
