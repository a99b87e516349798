import { createServer, IncomingMessage, Server } from 'node:http';
import { Pool } from 'pg';
import { BENCH_JOB_TYPE } from '../shared/bench-queue.interface';
import { floorInsertMany, FloorTables } from './floor.sql';

const BODY_LIMIT = 1024 * 1024;

/**
 * The floor's `POST /jobs`: bare node:http, JSON body, one single-row INSERT, 201 with the id.
 * It checks only what keeps the table sane (a JSON object of the benchmark's type); everything a
 * real API adds — validation with field-named errors, idempotency keys, the full job in the answer,
 * exception filters, security headers — is what the ratio prices.
 */
export function createFloorHttpServer(pool: Pool, tables: FloorTables): Server {
  return createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/jobs') return reply(404, { error: 'Not Found' });
    readBody(req)
      .then(async (text) => {
        const body = JSON.parse(text) as { type?: unknown; payload?: unknown };
        if (body?.type !== BENCH_JOB_TYPE) return reply(400, { error: 'unknown type' });
        const stmt = floorInsertMany(tables, [body.payload ?? {}]);
        const { rows } = await pool.query<{ id: string }>({ text: `${stmt.text} RETURNING id`, values: stmt.values });
        reply(201, { id: rows[0].id });
      })
      .catch((err: Error) => reply(err instanceof SyntaxError ? 400 : 500, { error: err.message }));
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) reject(new SyntaxError('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
