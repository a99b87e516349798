import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseUnavailableError } from '@conveyor/core';
import { ConveyorDatabase } from '@conveyor/core/storage/connections/conveyor-database.service';
import { PrivatePostgres, privatePostgresUnavailable } from '../support/private-postgres';
import { ClientEnding, TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait-for';

const DEADLINE_MS = 500;

const unavailable = privatePostgresUnavailable();
if (unavailable) console.warn(`Pooled TLS abandon tests skipped: ${unavailable}`);

/**
 * A statement on a pooled connection (a submission, the REST API, maintenance) that passes its deadline over TLS has
 * its connection reset, as the engine's dedicated connections do: on a real partition a reset discards the statement's
 * unacknowledged bytes, where a close leaves the kernel to deliver them, and the server to run the statement, once the
 * network heals. A proxy in front of a TLS-only cluster stands where the server's end of the TCP connection is and
 * tells the two apart.
 */
(unavailable ? describe.skip : describe)('a pooled statement abandoned at its deadline over TLS', () => {
  let cluster: PrivatePostgres;
  let proxy: TcpProxy;
  let dataSource: DataSource;
  let db: ConveyorDatabase;
  /** The test's own connection, straight to the cluster. */
  let admin: Client;
  let statements = 0;

  beforeAll(async () => {
    cluster = await PrivatePostgres.create({ tlsOnly: true });
    proxy = await new TcpProxy('127.0.0.1', cluster.port).start();
    admin = new Client({ connectionString: cluster.url('localhost'), ssl: { ca: readFileSync(cluster.certificateFile, 'utf8') } });
    await admin.connect();
    dataSource = await new DataSource({
      type: 'postgres',
      url: `${proxy.urlFor(cluster.url())}?sslmode=verify-full&sslrootcert=${cluster.certificateFile}`,
      extra: { max: 2 },
    }).initialize();
    db = new ConveyorDatabase(dataSource);
  }, 120_000);

  afterAll(async () => {
    await dataSource?.destroy();
    await admin?.end();
    await proxy?.stop();
    await cluster?.destroy();
  });

  /** Runs a statement that outlasts its deadline on the pool; how its connection ended, as the proxy saw it. */
  const abandonedStatementEnding = async (): Promise<ClientEnding> => {
    const marker = `conveyor-abandoned-${++statements}`;
    const failure = db.pool.query(`SELECT pg_sleep(30) /* ${marker} */`, [], { deadlineMs: DEADLINE_MS }).catch((err: unknown) => err);
    const clientPort = await waitFor(
      async () =>
        (
          await admin.query<{ client_port: number }>(
            'SELECT client_port FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()',
            [`%${marker}%`],
          )
        ).rows[0]?.client_port,
      { timeoutMs: DEADLINE_MS, message: `the server to run ${marker}` },
    );
    expect(await failure).toBeInstanceOf(DatabaseUnavailableError);
    const ending = proxy.clientEndings.get(clientPort);
    expect(ending).toBeDefined();
    return ending!;
  };

  it('resets the connection TypeORM opened before the engine started, or does not use it', async () => {
    expect(db.pgPool.idleCount).toBeGreaterThan(0);
    await expect(abandonedStatementEnding()).resolves.toBe('reset');
  });

  it('resets a connection the pool opened since', async () => {
    await expect(abandonedStatementEnding()).resolves.toBe('reset');
  });
});
