import { connect } from 'node:net';
import { Server } from 'node:http';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { openSse } from './support/sse-client';

const metric = async (app: TestApp, name: string) =>
  Number(new RegExp(`^${name} (\\d+)`, 'm').exec(await (await fetch(`${app.baseUrl}/metrics`)).text())?.[1] ?? NaN);

/**
 * A client that leaves before its stream is set up (here while `GET /jobs/:id/events` looks its job up) holds
 * nothing: no open stream, and no live-watch lease that would keep every instance's writers announcing for good.
 */
describe('Live events: a client that leaves before its stream opens', () => {
  let schema: TestSchema;
  let app: TestApp;

  const leases = async () => Number((await app.sql.query(`SELECT count(*) FROM ${app.db.tables.liveWatch}`)).rows[0].count);
  const openSockets = () => new Promise<number>((resolve) => (app.app.getHttpServer() as Server).getConnections((_, n) => resolve(n)));

  beforeAll(async () => {
    schema = await createTestSchema('live_early_leaver');
    app = await createTestApp({ schema: schema.schema, listen: true, engine: { runWorkers: false, externalTypes: ['LEAVER'] } });
  });

  afterAll(async () => {
    await app?.close();
    await schema?.drop();
  });

  it('holds no stream and no watch lease', async () => {
    const job = await app.jobs.enqueue('LEAVER', {});
    const locker = await app.sql.connect();
    try {
      // The route's lookup of the job waits behind this lock while its client goes away.
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${app.jobsTable} IN ACCESS EXCLUSIVE MODE`);
      const url = new URL(app.baseUrl);
      const socket = connect(Number(url.port), url.hostname);
      socket.on('error', () => undefined);
      socket.write(`GET /jobs/${job.id}/events HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
      await waitFor(
        async () => {
          const { rows } = await app.sql.query(
            `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
          );
          return rows.length > 0;
        },
        { message: 'the lookup to wait on the lock' },
      );
      socket.destroy();
      await waitFor(async () => (await openSockets()) === 0, { message: 'the server to see the client gone' });
      await locker.query('COMMIT');
    } finally {
      locker.release();
    }

    // A stream opened after the leaver's one has surely been set up (or not) by the time this one has its first event.
    const later = await openSse(`${app.baseUrl}/jobs/${job.id}/events`);
    await later.waitForJob((e) => e.id === job.id, "the later stream's first event");
    later.close();
    await waitFor(async () => (await metric(app, 'conveyor_live_connections')) === 0 && (await leases()) === 0, {
      message: 'no open stream and no watch lease',
    });
  });
});
