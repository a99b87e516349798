import { Inject } from '@nestjs/common';
import { Job, JobHandler, JobHandlerHost } from '@conveyor/core';
import { BENCH_JOB_TYPE, WorkerHooks } from '../shared/bench-queue.interface';

/** Injection token of the case's {@link WorkerHooks}. */
export const BENCH_HOOKS = Symbol('BENCH_HOOKS');

/** Does nothing but tell the case it started, so the benchmark measures the queue, not the work. */
@JobHandler(BENCH_JOB_TYPE)
export class BenchNoopHandler extends JobHandlerHost<unknown, null> {
  constructor(@Inject(BENCH_HOOKS) private readonly hooks: WorkerHooks) {
    super();
  }

  handle(job: Job<unknown>): null {
    this.hooks.onStart?.(job.id, job.payload);
    return null;
  }
}
