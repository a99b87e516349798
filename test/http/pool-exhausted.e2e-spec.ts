import { createServer, Server, Socket } from 'node:net';
import { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { DatabasePoolExhaustedError, DatabaseUnavailableError } from '@conveyor/core';
import { ConveyorDatabase } from '@conveyor/core/storage/connections/conveyor-database.service';
import { MESSAGES } from '@conveyor/core/errors/conveyor.messages';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

const POOL_SIZE = 2;
const POOL_TIMEOUT_MS = 300;

/**
 * A 503 says which of two things went wrong: every connection of the pool is in use (the database is fine,
 * the service is busy), or a connection cannot be opened (the database is unreachable).
 */
describe('503 when the connection pool is exhausted', () => {
  let t: RestTestApp;

  beforeAll(async () => {
    t = await createRestTestApp('http_pool_exhausted', {
      engine: { runWorkers: false },
      poolSize: POOL_SIZE,
      poolTimeoutMs: POOL_TIMEOUT_MS,
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('says the pool is exhausted, with Retry-After, while every connection is checked out; answers again once one is back', async () => {
    const held: PoolClient[] = [];
    try {
      // The engine's maintenance may hold a connection for a moment: take both as they come free.
      for (let attempt = 0; held.length < POOL_SIZE && attempt < 20; attempt++) {
        const client = await t.db.pgPool.connect().catch(() => undefined);
        if (client) held.push(client);
      }
      expect(held).toHaveLength(POOL_SIZE);
      for (const res of [await t.api().get('/jobs'), await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {} })]) {
        expectErrorBody(res, 503);
        expect(res.headers['retry-after']).toBeDefined();
        expect(res.body.message).toBe(MESSAGES.databasePoolExhausted);
        expect(res.body.message).not.toBe(MESSAGES.databaseUnavailable);
      }
    } finally {
      for (const client of held) client.release();
    }
    await t.api().get('/jobs').expect(200);
  });
});

describe('503 when a connection cannot be opened', () => {
  let hole: Server;
  const sockets = new Set<Socket>();
  let pool: Pool;
  let closing = false;

  beforeAll(async () => {
    // Accepts connections and never answers: opening a connection times out, as with a database that hangs.
    hole = createServer((socket) => {
      if (closing) return void socket.destroy();
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
    pool = new Pool({
      host: '127.0.0.1',
      port: (hole.address() as { port: number }).port,
      user: 'nobody',
      max: 1,
      connectionTimeoutMillis: POOL_TIMEOUT_MS,
    });
  });

  afterAll(async () => {
    // Stop listening first: a connection the pool opens meanwhile is refused instead of holding close() open.
    closing = true;
    const closed = new Promise((resolve) => (hole ? hole.close(resolve) : resolve(undefined)));
    for (const s of sockets) s.destroy();
    await pool?.end().catch(() => undefined);
    for (const s of sockets) s.destroy();
    await closed;
  });

  it('says the database is unavailable even for a request that timed out waiting for a pool slot', async () => {
    const db = new ConveyorDatabase({ options: { schema: 'unreachable' }, driver: { master: pool } } as unknown as DataSource);
    // The first opens the pool's only connection and hangs; the second waits for a slot until the pool's timeout.
    const failures = (await Promise.allSettled([db.pool.query('SELECT 1'), db.pool.query('SELECT 1')])).map(
      (r) => (r as PromiseRejectedResult).reason,
    );
    expect(failures.map((e) => (e as Error).cause && ((e as Error).cause as Error).message)).toContain(
      'timeout exceeded when trying to connect',
    );
    for (const err of failures) {
      expect(err).toBeInstanceOf(DatabaseUnavailableError);
      expect(err).not.toBeInstanceOf(DatabasePoolExhaustedError);
      expect((err as Error).message).toBe(MESSAGES.databaseUnavailable);
    }
  });
});
