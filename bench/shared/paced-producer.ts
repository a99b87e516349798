import { setTimeout as sleep } from 'node:timers/promises';
import { BenchQueue } from './bench-queue.interface';

/** Payload of a latency job: its index and when it was sent, on the clock of `wallClockMs()`. */
export interface LatencyPayload {
  i: number;
  sentAt: number;
}

/**
 * Milliseconds since the epoch with sub-millisecond resolution: `performance.timeOrigin + performance.now()`.
 * Each process takes its origin from the system clock when it starts, so stamps of two processes on one machine
 * compare to within microseconds — which lets a producer in another process stamp its jobs.
 */
export function wallClockMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Enqueues `total` jobs one every `intervalMs`, each stamped just before its enqueue call. Paced by the schedule,
 * not by the previous call, so a slow enqueue does not shift later ones.
 */
export async function producePaced(queue: BenchQueue, total: number, intervalMs: number): Promise<void> {
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = t0 + i * intervalMs - performance.now();
    if (wait > 0) await sleep(wait);
    await queue.enqueueOne({ i, sentAt: wallClockMs() } satisfies LatencyPayload);
  }
}
