import { checkpointBeforeMeasuring } from '../database/checkpoint';
import { per1k } from '../measure/case-meters';
import { PostgresCpuMeter } from '../measure/postgres-cpu-meter';
import { BenchChild } from '../processes/bench-child';
import { QUEUE_CONFIG_ENV, QueueProcessConfig } from '../processes/queue-process-config';
import { BENCH_JOB_TYPE } from '../shared/bench-queue.interface';
import { engineDefaultSettings } from '../shared/worker-settings';
import { CaseCheckError, CaseRunner } from './case-runner';

const START_TIMEOUT_MS = 120_000;
const EXIT_GRACE_MS = 15_000;

/**
 * Bulk enqueue over REST: `jobs` no-op jobs as `POST /jobs/batch` requests of `chunk` jobs, one after another,
 * to Conveyor's API (Express, no worker running) in a process of its own. Compared with the floor's multi-row
 * INSERT of the `enqueue` case: what the API adds on top of a bulk insert. `warmUpJobs` go first, untimed;
 * every request must answer 201 (all or nothing, so each answered batch is stored whole).
 */
export const enqueueHttpBatchCase: CaseRunner = async (spec) => {
  const { jobs, chunk, warmUpJobs } = spec.sizes;
  const config: QueueProcessConfig = {
    variant: spec.variant,
    url: spec.url,
    schema: spec.schema,
    appName: spec.appName,
    settings: engineDefaultSettings(),
    serve: { http: 'express', worker: false },
  };
  const server = new BenchChild('bench/processes/http-server.process.ts', { [QUEUE_CONFIG_ENV]: JSON.stringify(config) }, 'server');
  let graceful = false;
  try {
    const { port } = await server.next('ready', START_TIMEOUT_MS);
    const send = async (count: number) => {
      for (let sent = 0; sent < count; sent += chunk) {
        const size = Math.min(chunk, count - sent);
        const body = { jobs: Array.from({ length: size }, (_, i) => ({ type: BENCH_JOB_TYPE, payload: { n: sent + i } })) };
        const res = await fetch(`http://127.0.0.1:${port as number}/jobs/batch`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (res.status !== 201) throw new CaseCheckError(`POST /jobs/batch answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        await res.arrayBuffer();
      }
    };
    await send(warmUpJobs);
    await checkpointBeforeMeasuring(spec.url);

    const pg = new PostgresCpuMeter(spec.pgCpu, spec.url);
    await pg.start();
    server.send('go');
    const t0 = performance.now();
    await send(jobs);
    const seconds = (performance.now() - t0) / 1000;
    const pgCpuMs = await pg.stop();
    server.send('stop');
    const { cpuMs } = await server.next('result', START_TIMEOUT_MS);
    graceful = true;
    return {
      metrics: {
        jobs,
        chunk,
        seconds,
        jobsPerSec: jobs / seconds,
        nodeCpuMsPer1k: per1k(cpuMs as number, jobs),
        pgCpuMsPer1k: per1k(pgCpuMs, jobs),
      },
    };
  } finally {
    await server.stopped(graceful ? EXIT_GRACE_MS : 0);
  }
};
