import { INestApplicationContext } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { ConveyorEvents, JobOutcome } from '../observation/events/conveyor-events.service';
import { HandlerRegistry } from '../handlers/handler-registry.service';
import { Job } from '../job/job';
import { JobStatus } from '../job/job-status';
import { ClaimTrigger } from '../consumer/claim-trigger';
import { jobCountDrainable } from '../storage/statements/job-count-drainable.sql';
import { run } from '../storage/statements/statement';
import { WorkerPool } from '../consumer/worker-pool.service';
import { DrainTimeoutError } from './drain-timeout.error';

/** How long `drainQueue` waits, and how often it re-checks the queue between the engine's own signals. */
export interface DrainQueueOptions {
  /** Default 10 000. */
  timeoutMs?: number;
  /** Upper bound between two checks when no attempt ends meanwhile (a job made due by the clock). Default 50. */
  checkEveryMs?: number;
}

/** One attempt that ended while draining, as written to the database. */
export interface DrainedAttempt {
  job: Job;
  status: JobStatus;
  outcome: JobOutcome;
}

/** What `drainQueue` saw: every attempt written meanwhile, in order, and counts by outcome. */
export interface DrainResult {
  attempts: DrainedAttempt[];
  counts: Record<JobOutcome, number>;
}

/**
 * Runs the app's due jobs now and resolves once none is left: no job of a type this app runs is due (outside
 * paused queues), none is claimed, running or waiting for its outcome to be written. Jobs that fail and are
 * retried later, or are scheduled in the future, are not waited for: a retry runs in the drain only if its backoff has
 * ended when the drain checks the queue after the attempt (so a backoff of a few milliseconds races that check). Uses the app's own worker: the engine
 * must have started (`app.init()`, `runWorkers` left on). Rejects with DrainTimeoutError after `timeoutMs`.
 */
export async function drainQueue(app: INestApplicationContext, options: DrainQueueOptions = {}): Promise<DrainResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const checkEveryMs = options.checkEveryMs ?? 50;
  const engine: ConveyorOptions = app.get(CONVEYOR_OPTIONS);
  const pool = app.get(WorkerPool);
  const trigger = app.get(ClaimTrigger);
  const events = app.get(ConveyorEvents);
  const db = app.get(ConveyorDatabase);
  if (!pool.isAccepting) throw new Error("drainQueue needs the app's worker running: call app.init() and leave runWorkers on");
  const types = app
    .get(HandlerRegistry)
    .all()
    .map((h) => h.type)
    .filter((type) => !engine.externalTypes.includes(type));

  const result: DrainResult = { attempts: [], counts: { completed: 0, failed: 0, snoozed: 0, dead: 0, cancelled: 0, handed_back: 0 } };
  let changed: () => void = () => undefined;
  const offFinished = events.on('finished', (job, status, _durationMs, outcome) => {
    result.attempts.push({ job, status, outcome });
    result.counts[outcome]++;
    changed();
  });
  const offPool = pool.onChange(() => changed());
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      trigger.jobsDueNow();
      if ((await remainingWork(db, types, engine.workerId, pool)) === 0) return result;
      const left = deadline - Date.now();
      if (left <= 0) {
        const { due, running } = await workLeft(db, types, engine.workerId, pool);
        throw new DrainTimeoutError(timeoutMs, due, running);
      }
      // Re-check when an attempt ends or a slot frees, or after a short wait for jobs the clock makes due.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(checkEveryMs, left));
        changed = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      changed = () => undefined;
    }
  } finally {
    offFinished();
    offPool();
  }
}

/**
 * Held jobs are checked first and again after the count: a claim that returns while the count runs moves its
 * jobs from RUNNING-in-the-database to held, and one of the two checks sees them.
 */
async function remainingWork(db: ConveyorDatabase, types: string[], workerId: string, pool: WorkerPool): Promise<number> {
  if (heldBy(pool) > 0) return heldBy(pool);
  const { due, running } = await workLeft(db, types, workerId, pool);
  return due + running;
}

/**
 * Every job left, counted apart: the held ones are RUNNING under this worker's claim in the database too, so the
 * larger of the two counts is what is running (the pool's when a claim returns while the count runs).
 */
async function workLeft(
  db: ConveyorDatabase,
  types: string[],
  workerId: string,
  pool: WorkerPool,
): Promise<{ due: number; running: number }> {
  if (types.length === 0) return { due: 0, running: heldBy(pool) };
  const { rows } = await run<{ due: number; running: number }>(db.pool, jobCountDrainable(db.tables, types, workerId));
  return { due: rows[0].due, running: Math.max(rows[0].running, heldBy(pool)) };
}

function heldBy(pool: WorkerPool): number {
  const stats = pool.stats();
  return stats.running + stats.buffered + stats.finishing;
}
