import express from 'express';
import fastify from 'fastify';
import { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { BENCH_JOB_TYPE } from '../shared/bench-queue.interface';
import { FloorTables } from './floor-tables';

/** The web frameworks Conveyor's API runs on (through Nest's adapters), and the floor's servers on them. */
export type HttpPlatform = 'express' | 'fastify';

const BODY_LIMIT = 1024 * 1024;

/** A started server. */
export interface FloorHttpServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The floor's `POST /jobs` on the bare framework (no Nest): JSON body, one single-row INSERT per request, 201
 * with the id. It checks only what keeps the table sane (a body of the benchmark's type); everything a real API
 * adds — validation with field-named errors, idempotency keys, the full job in the answer, exception filters,
 * security headers — and whatever Conveyor does to share statements between requests is what the ratio prices.
 */
export function startFloorHttpServer(platform: HttpPlatform, pool: Pool, tables: FloorTables): Promise<FloorHttpServer> {
  const insert = async (body: { type?: unknown; payload?: unknown } | undefined): Promise<{ status: number; body: unknown }> => {
    if (body?.type !== BENCH_JOB_TYPE) return { status: 400, body: { error: 'unknown type' } };
    const stmt = tables.sql.insertMany([body.payload ?? {}]);
    const { rows } = await pool.query<{ id: string }>({ text: `${stmt.text} RETURNING id`, values: stmt.values });
    return { status: 201, body: { id: rows[0].id } };
  };
  return platform === 'express' ? startExpress(insert) : startFastify(insert);
}

type Insert = (body: { type?: unknown; payload?: unknown } | undefined) => Promise<{ status: number; body: unknown }>;

async function startExpress(insert: Insert): Promise<FloorHttpServer> {
  const app = express();
  app.post('/jobs', express.json({ limit: BODY_LIMIT }), (req, res) => {
    insert(req.body as Parameters<Insert>[0]).then(
      (answer) => res.status(answer.status).json(answer.body),
      (err: Error) => res.status(500).json({ error: err.message }),
    );
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function startFastify(insert: Insert): Promise<FloorHttpServer> {
  const app = fastify({ bodyLimit: BODY_LIMIT });
  app.post('/jobs', async (req, reply) => {
    const answer = await insert(req.body as Parameters<Insert>[0]);
    return reply.code(answer.status).send(answer.body);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}
