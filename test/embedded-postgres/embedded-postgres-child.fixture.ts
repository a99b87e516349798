/**
 * Child process for start-embedded-postgres.e2e-spec.ts: starts an embedded server on the data
 * directory given as argv[2], adds one row to `marker`, and prints one JSON line per event.
 * Mode (argv[3]): `once` stops and exits; `hold` keeps running until SIGTERM, so the test can
 * kill it (SIGKILL) the way a crashed server process dies.
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
  emit({ ready: true, url: server.url, markers: Number(rows[0].count) });

  if (mode === 'hold') {
    process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
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
