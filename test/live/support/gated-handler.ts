import { Injectable } from '@nestjs/common';
import { Job, JobContext, JobHandler, JobHandlerHost } from '@conveyor/core';

/** Payload of GATED: a progress report to make before waiting. */
export interface GatedPayload {
  progress?: { percent?: number; data?: Record<string, unknown> };
}

const gates = new Map<string, () => void>();
const waiting = new Set<string>();

/** Lets the GATED job `id` finish (now, or as soon as it starts). */
export function openGate(id: string): void {
  const release = gates.get(id);
  if (release) release();
  else waiting.add(id);
}

/**
 * A handler that reports the payload's progress, then waits until the test opens its gate: so a test sees the job
 * RUNNING, with its progress, for as long as it needs.
 */
@Injectable()
@JobHandler('GATED', { timeout: 60_000 })
export class GatedHandler extends JobHandlerHost<GatedPayload> {
  async handle(job: Job<GatedPayload>, ctx: JobContext): Promise<unknown> {
    if (job.payload.progress) await ctx.progress(job.payload.progress);
    if (waiting.delete(job.id)) return { done: true };
    await new Promise<void>((resolve) => gates.set(job.id, resolve));
    gates.delete(job.id);
    return { done: true };
  }
}
