import { withClient } from '../database/with-client';
import { Countdown } from '../measure/countdown';
import { Variant } from './bench-case';
import { WorkerSettings } from './bench-queue.interface';
import { createBenchQueue } from './create-bench-queue';

const WARM_UP_APPLICATION_NAME = 'bench-warm-up';

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
}

/**
 * Runs `jobs` no-op jobs through a throwaway queue of the same variant in this process — enqueue, then a
 * worker with the measured phase's settings drains them — and drops its schema. The measured phase then
 * starts with the code compiled by the JIT, as in a service that has been running; without it a 20,000-job
 * drain of half a second measures mostly how fast V8 optimises the code on the path, which penalises the
 * larger code base, not the queue. Every variant, the floor included, warms up the same way. With 0 jobs it
 * does nothing (`--warm-up-jobs 0` measures a cold process).
 */
export async function warmUp(plan: WarmUpPlan): Promise<void> {
  if (plan.jobs === 0) return;
  await withClient(plan.url, (c) => c.query(`CREATE SCHEMA ${plan.schema}`), WARM_UP_APPLICATION_NAME);
  const queue = createBenchQueue(plan.variant, plan.url, plan.schema, `${plan.appName}:warm`);
  try {
    await queue.setup();
    await queue.enqueueMany(plan.jobs, plan.chunk);
    const finished = new Countdown(plan.jobs, 'warm-up outcomes written');
    await queue.prepareWorker(plan.settings, { onFinished: (n) => finished.add(n) });
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
