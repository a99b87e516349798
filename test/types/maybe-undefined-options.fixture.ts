/**
 * A host's calls with values that may be undefined (`process.env.X`, an optional header), as the READMEs show them.
 * `maybe-undefined-options.spec.ts` compiles this file with `exactOptionalPropertyTypes`, where an option typed
 * `apiKey?: string` refuses `string | undefined`; `npm run typecheck` compiles it without.
 */
import { ConveyorClient, JobStatus, runWorker } from '@conveyor/client';
import { ConveyorModule, JobsService } from '@conveyor/core';
import type { EntityManager } from 'typeorm';

declare const maybeText: string | undefined;
declare const maybeNumber: number | undefined;
declare const maybeStatus: JobStatus | undefined;
declare const maybeManager: EntityManager | undefined;
declare const maybeSignal: AbortSignal | undefined;

export async function clientCalls(): Promise<void> {
  const conveyor = new ConveyorClient({ baseUrl: 'http://conveyor:3000', apiKey: process.env.CONVEYOR_API_KEY, timeoutMs: maybeNumber });
  const job = await conveyor.submit(
    { type: 'SEND_EMAIL', payload: { to: 'ada@example.com' }, queue: maybeText, runAt: maybeText, uniqueKey: maybeText },
    { idempotencyKey: maybeText, signal: maybeSignal },
  );
  await conveyor.waitFor(job.id, { timeoutMs: maybeNumber, signal: maybeSignal });
  await conveyor.list({ status: maybeStatus, type: maybeText, cursor: maybeText, limit: maybeNumber }, { signal: maybeSignal });
  const worker = runWorker('images', async (claimed) => claimed.payload, {
    baseUrl: 'http://conveyor:3000',
    apiKey: process.env.CONVEYOR_WORKER_KEY,
    concurrency: maybeNumber,
    workerId: maybeText,
  });
  await worker.stop();
}

export async function engineCalls(jobs: JobsService): Promise<void> {
  await jobs.enqueue('SEND_EMAIL', { to: 'ada@example.com' }, { idempotencyKey: maybeText, delayMs: maybeNumber, manager: maybeManager });
  await jobs.enqueueMany([{ type: 'SEND_EMAIL', payload: {}, queue: maybeText }], { manager: maybeManager });
}

export const modules = [
  ConveyorModule.forRoot({ listenUrl: process.env.LISTEN_DATABASE_URL, concurrency: maybeNumber, backoff: { baseMs: maybeNumber } }),
  ConveyorModule.forRootAsync({ dataSourceName: maybeText, useFactory: () => ({ leaseMs: maybeNumber }) }),
];
