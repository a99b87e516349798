import { withClient } from '../database/with-client';
import { Countdown } from '../measure/countdown';
import { Variant } from '../shared/bench-case';
import { WorkerSettings } from '../shared/bench-queue.interface';
import { createBenchQueue } from './create-bench-queue';

const WARM_UP_APPLICATION_NAME = 'bench-warm-up';

/** Warm-up rounds, each in an app instance of its own (see warmUp for why two). */
const WARM_UP_ROUNDS = 2;

/** Where and how much a process warms up before its measured phase. */
export interface WarmUpPlan {
  variant: Variant;
  url: string;
  /** A schema of its own (created here, dropped here; the runner drops leftovers of a killed case). */
  schema: string;
  appName: string;
  jobs: number;
  chunk: number;
  settings: WorkerSettings;
  /** Warm up with live events watched, as the measured phase will be (PrepareWorkerOptions.liveWatched). */
  liveWatched?: boolean;
}

/**
 * Runs `jobs` no-op jobs through a throwaway queue of the same variant in this process — enqueue, then a
 * worker with the measured phase's settings and the same hooks drains them — and drops its schema; twice.
 * The measured phase then starts with the code compiled by the JIT, as in a service that has been running;
 * without it a 20,000-job drain of half a second measures mostly how fast V8 optimises the code on the path,
 * which penalises the larger code base, not the queue. Every variant, the floor included, warms up the same
 * way. With 0 jobs it does nothing (`--warm-up-jobs 0` measures a cold process).
 *
 * Why the same hooks and why two rounds: the measured phase runs in a new app instance. With one round, and
 * the warm-up's worker calling only `onFinished`, V8 deoptimised seven engine functions at the start of the
 * measured drain (`--log-deopt`: the claim's row mapping, the metrics series, the completer's queue, the
 * outcome log; "wrong map": objects of the new instance and a call site that had never seen `onStart`), and
 * its compiler threads then took ~0.7 of a core for the first ~100 ms, beside a worker backend that needs
 * one of the two. The second round meets those deoptimisations itself; with it none of the engine's
 * functions is deoptimised in the measured drain, and Node's CPU per 1,000 jobs went from 15.6-23.1 to
 * 13.8-15.8 (6 alternating pairs of 20,000-job drains).
 */
export async function warmUp(plan: WarmUpPlan): Promise<void> {
  for (let round = 0; round < WARM_UP_ROUNDS; round++) await warmUpRound(plan);
}

async function warmUpRound(plan: WarmUpPlan): Promise<void> {
  if (plan.jobs === 0) return;
  await withClient(plan.url, (c) => c.query(`CREATE SCHEMA ${plan.schema}`), WARM_UP_APPLICATION_NAME);
  const queue = createBenchQueue(plan.variant, plan.url, plan.schema, `${plan.appName}:warm`);
  try {
    await queue.setup();
    await queue.enqueueMany(plan.jobs, plan.chunk);
    const started = new Countdown(plan.jobs, 'warm-up handlers started');
    const finished = new Countdown(plan.jobs, 'warm-up outcomes written');
    await queue.prepareWorker(
      plan.settings,
      { onStart: () => started.add(), onFinished: (n) => finished.add(n) },
      { liveWatched: plan.liveWatched },
    );
    await queue.startWorker();
    await finished.reached();
  } finally {
    await queue.close();
    await withClient(plan.url, (c) => c.query(`DROP SCHEMA IF EXISTS ${plan.schema} CASCADE`), WARM_UP_APPLICATION_NAME);
  }
}

/** Name of a case's warm-up schema (`k`: which of the case's processes); the runner drops any left over. */
export function warmUpSchema(caseSchema: string, k = 0): string {
  return `${caseSchema}_warm${k}`;
}
