import { ConveyorOptionsInput } from '@conveyor/core';
import { createTestApp, TestApp } from '../../support/test-app';
import { createTestSchema, TestSchema } from '../../support/test-database';
import { GatedHandler } from './gated-handler';
import { openSse, SseClient } from './sse-client';

const PRODUCER = 'producer-key-for-live-tests';
const ADMIN = 'admin-key-for-live-tests';

/** Headers of the producer's and of the admin's API key the pair accepts. */
export const asProducer = { Authorization: `Bearer ${PRODUCER}` };
export const asAdmin = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' };

/**
 * Two instances on one schema: A serves the live streams and runs no workers; B takes submissions, runs the jobs
 * (GatedHandler) and steers them. Everything a subscriber of A sees was written by B, so it can only have come
 * through PostgreSQL.
 */
export interface LivePair {
  a: TestApp;
  b: TestApp;
  /** Opens a stream on A (as the producer unless `headers` say otherwise); closed by `closeStreams`. */
  open(path: string, headers?: Record<string, string>): Promise<SseClient>;
  /** Submits a job to B as the admin; expects 201. */
  submit(body: Record<string, unknown>): Promise<{ id: string }>;
  closeStreams(): void;
  close(): Promise<void>;
}

export async function startLivePair(
  label: string,
  options: { platform?: 'express' | 'fastify'; engine?: ConveyorOptionsInput } = {},
): Promise<LivePair> {
  const schema: TestSchema = await createTestSchema(label);
  const httpOptions = {
    apiKeys: [
      { role: 'producer' as const, key: PRODUCER },
      { role: 'admin' as const, key: ADMIN },
    ],
  };
  const common = { schema: schema.schema, providers: [GatedHandler], listen: true, httpOptions };
  const a = await createTestApp({ ...common, platform: options.platform, engine: { runWorkers: false } });
  const b = await createTestApp({ ...common, engine: options.engine });
  const streams: SseClient[] = [];
  const pair: LivePair = {
    a,
    b,
    open: async (path, headers = asProducer) => {
      const s = await openSse(`${a.baseUrl}${path}`, headers);
      streams.push(s);
      return s;
    },
    submit: async (body) => {
      const res = await fetch(`${b.baseUrl}/jobs`, { method: 'POST', headers: asAdmin, body: JSON.stringify(body) });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string };
    },
    closeStreams: () => {
      for (const s of streams.splice(0)) s.close();
    },
    close: async () => {
      pair.closeStreams();
      await Promise.all([a.close(), b.close()]);
      await schema.drop();
    },
  };
  return pair;
}
