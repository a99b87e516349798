/**
 * The server of the HTTP cases: `node -r ./test/support/register-ts.js bench/processes/http-server.process.ts`.
 * Serves `POST /jobs` (Conveyor: its whole API) on the framework `serve.http` names, with its worker running
 * as a real deployment does unless `serve.worker` is false, prints `ready` with its port, measures its CPU
 * between `go` and `stop`, and reports it.
 */
import 'reflect-metadata';
import { NodeCpuMeter } from '../measure/node-cpu-meter';
import { createBenchQueue } from '../queues/create-bench-queue';
import { emitEvent, nextCommand, readJsonEnv, runChild } from './bench-protocol';
import { QUEUE_CONFIG_ENV, QueueProcessConfig } from './queue-process-config';

runChild(async () => {
  const config = readJsonEnv<QueueProcessConfig>(QUEUE_CONFIG_ENV);
  const queue = createBenchQueue(config.variant, config.url, config.schema, config.appName);
  let finished = 0;
  await queue.setup();
  await queue.prepareWorker(config.settings, { onFinished: (n) => (finished += n) }, { http: 'express', ...config.serve });
  const port = await queue.startWorker();
  emitEvent({ event: 'ready', port });

  await nextCommand('go');
  const cpu = new NodeCpuMeter();
  cpu.start();
  await nextCommand('stop');
  const cpuMs = cpu.stop();
  emitEvent({ event: 'result', cpuMs, finished });
  await queue.close();
});
