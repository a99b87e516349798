/**
 * Child process for start-embedded-postgres.e2e-spec.ts: starts an embedded server on the data
 * directory given as argv[2], adds one row to `marker`, and prints one JSON line per event.
 * Mode (argv[3]): `once` stops and exits; `hold` keeps running until SIGTERM, so the test can
 * kill it (SIGKILL) the way a crashed server process dies. In `hold` mode, SIGINT (Ctrl-C) is
 * handled the way a host that drains its work does: a query still runs on a connection opened
 * before the signal, its outcome is printed, and only then is the server stopped. `idle` keeps
 * running without handling any signal, as a host that has not installed its shutdown handling yet;
 * `idle-two` does so with a second server open as well, on `<dataDir>-second`.
 */
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../../libs/embedded-postgres/src';

const [dataDir, mode] = process.argv.slice(2);
const emit = (event: Record<string, unknown>) => console.log(JSON.stringify(event));

async function main(): Promise<void> {
  const server = await startEmbeddedPostgres({ dataDir, log: (message) => emit({ log: message }) });
  const client = new Client({ connectionString: server.url });
  await client.connect();
  await client.query('CREATE TABLE IF NOT EXISTS marker (at timestamptz DEFAULT now())');
  await client.query('INSERT INTO marker DEFAULT VALUES');
  const { rows } = await client.query<{ count: string }>('SELECT count(*) FROM marker');
  await client.end();
  const ready = { ready: true, url: server.url, markers: Number(rows[0].count) };

  if (mode === 'hold') {
    const draining = new Client({ connectionString: server.url });
    await draining.connect();
    draining.on('error', () => undefined);
    process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
    process.once('SIGINT', () => {
      // Long enough for a server that heard the signal too to have cut this connection.
      void draining
        .query('SELECT pg_sleep(0.5)')
        .then(
          () => emit({ afterInterrupt: 'ok' }),
          (error: Error) => emit({ afterInterrupt: error.message }),
        )
        .then(() => server.stop())
        .then(() => process.exit(0));
    });
    setInterval(() => undefined, 60_000);
    // Only now: a signal sent on `ready` must find its handler in place.
    emit(ready);
    return;
  }
  if (mode === 'idle-two') await startEmbeddedPostgres({ dataDir: `${dataDir}-second` });
  emit(ready);
  if (mode === 'idle' || mode === 'idle-two') {
    setInterval(() => undefined, 60_000);
    return;
  }
  await server.stop();
  emit({ stopped: true });
}

main().catch((error: Error) => {
  emit({ error: error.name, message: error.message });
  process.exit(1);
});
