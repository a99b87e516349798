import autocannon from 'autocannon';
import { checkpointBeforeMeasuring } from '../database/checkpoint';
import { per1k } from '../measure/case-meters';
import { PostgresCpuMeter } from '../measure/postgres-cpu-meter';
import type { HttpPlatform } from '../floor/floor-http-server';
import { BenchChild } from '../processes/bench-child';
import { QUEUE_CONFIG_ENV, QueueProcessConfig } from '../processes/queue-process-config';
import { BENCH_JOB_TYPE } from '../shared/bench-queue.interface';
import { engineDefaultSettings } from '../shared/worker-settings';
import { CaseCheckError, CaseRunner } from './case-runner';

const START_TIMEOUT_MS = 120_000;
const WARM_UP_SECONDS = 1;
const EXIT_GRACE_MS = 15_000;

/**
 * `POST /jobs` under load, `httpConnections` concurrent requests: the server (Conveyor's REST API in a Nest app
 * like apps/server on Nest's adapter for `platform`, or the floor's one-INSERT-per-request endpoint on the bare
 * framework) runs in its own process with its worker draining what arrives; autocannon drives it from this one.
 * Reports 2xx responses per second and the latency p50/p99.
 */
export const httpCase =
  (platform: HttpPlatform): CaseRunner =>
  async (spec) => {
    const { httpSeconds, httpConnections } = spec.sizes;
    const config: QueueProcessConfig = {
      variant: spec.variant,
      url: spec.url,
      schema: spec.schema,
      appName: spec.appName,
      settings: engineDefaultSettings(),
      serve: { http: platform },
    };
    const server = new BenchChild('bench/processes/http-server.process.ts', { [QUEUE_CONFIG_ENV]: JSON.stringify(config) }, 'server');
    let graceful = false;
    try {
      const { port } = await server.next('ready', START_TIMEOUT_MS);
      const load = (duration: number) =>
        autocannon({
          url: `http://127.0.0.1:${port as number}/jobs`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type: BENCH_JOB_TYPE, payload: { n: 1 } }),
          connections: httpConnections,
          duration,
        });
      await load(WARM_UP_SECONDS);
      await checkpointBeforeMeasuring(spec.url);

      const pg = new PostgresCpuMeter(spec.pgCpu, spec.url);
      await pg.start();
      server.send('go');
      const result = await load(httpSeconds);
      const pgCpuMs = await pg.stop();
      server.send('stop');
      const { cpuMs } = await server.next('result', START_TIMEOUT_MS);
      graceful = true;

      const ok = result['2xx'];
      if (ok === 0) throw new CaseCheckError(`no 2xx responses (${result.non2xx} non-2xx, ${result.errors} errors)`);
      return {
        metrics: {
          seconds: result.duration,
          connections: httpConnections,
          requests: ok,
          requestsPerSec: ok / result.duration,
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
          nodeCpuMsPer1k: per1k(cpuMs as number, ok),
          pgCpuMsPer1k: per1k(pgCpuMs, ok),
        },
      };
    } finally {
      await server.stopped(graceful ? EXIT_GRACE_MS : 0);
    }
  };
