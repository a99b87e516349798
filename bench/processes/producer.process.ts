/**
 * The producer of the `latency-remote` case, in a process of its own:
 * `node -r ./test/support/register-ts.js bench/processes/producer.process.ts`.
 * Opens a producer on the case's schema, prints `ready`, and on `go` enqueues its paced jobs, then prints `sent`.
 */
import 'reflect-metadata';
import { createBenchQueue } from '../queues/create-bench-queue';
import { producePaced } from '../shared/paced-producer';
import { emitEvent, nextCommand, readJsonEnv, runChild } from './bench-protocol';
import { QUEUE_CONFIG_ENV, QueueProcessConfig } from './queue-process-config';

runChild(async () => {
  const config = readJsonEnv<QueueProcessConfig>(QUEUE_CONFIG_ENV);
  if (!config.produce) throw new Error(`${QUEUE_CONFIG_ENV} has no "produce" section`);
  const queue = createBenchQueue(config.variant, config.url, config.schema, config.appName);
  try {
    await queue.attach();
    emitEvent({ event: 'ready' });
    await nextCommand('go');
    await producePaced(queue, config.produce.jobs, config.produce.intervalMs);
    emitEvent({ event: 'sent' });
  } finally {
    await queue.close();
  }
});
