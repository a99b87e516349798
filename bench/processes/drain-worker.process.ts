/**
 * One of the two worker processes of the two-process case:
 * `node -r ./test/support/register-ts.js bench/processes/drain-worker.process.ts`.
 * Warms up (see warmUp), prints `ready` once built, starts claiming on `go`, reports `progress` every
 * 100 ms, and on `stop` reports the id of every job whose handler it ran (to count duplicates) and its
 * CPU time.
 */
import 'reflect-metadata';
import { NodeCpuMeter } from '../measure/node-cpu-meter';
import { createBenchQueue } from '../queues/create-bench-queue';
import { warmUp } from '../queues/warm-up';
import { emitEvent, nextCommand, readJsonEnv, runChild } from './bench-protocol';
import { QUEUE_CONFIG_ENV, QueueProcessConfig } from './queue-process-config';

runChild(async () => {
  const config = readJsonEnv<QueueProcessConfig>(QUEUE_CONFIG_ENV);
  if (config.warmUp) await warmUp({ ...config, ...config.warmUp });
  const queue = createBenchQueue(config.variant, config.url, config.schema, config.appName);
  const ids: string[] = [];
  let finished = 0;
  let lastAt = 0;
  await queue.prepareWorker(config.settings, {
    onStart: (id) => ids.push(id),
    onFinished: (n) => {
      finished += n;
      lastAt = Date.now();
    },
  });
  emitEvent({ event: 'ready' });

  await nextCommand('go');
  const cpu = new NodeCpuMeter();
  cpu.start();
  await queue.startWorker();
  let reported = -1;
  const progress = setInterval(() => {
    if (finished === reported) return;
    reported = finished;
    emitEvent({ event: 'progress', finished, lastAt });
  }, 100);

  await nextCommand('stop');
  clearInterval(progress);
  const cpuMs = cpu.stop();
  await queue.close();
  emitEvent({ event: 'result', ids, finished, lastAt, cpuMs });
});
