import { JobStatus } from '../job/job-status';
import { LivePublisher } from '../observation/live/live-publisher.service';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { jobExtendLease } from '../storage/statements/job-extend-leases.sql';
import { jobSetProgress } from '../storage/statements/job-set-progress.sql';
import { run } from '../storage/statements/statement';
import { LeaseLostError } from '../errors/lease-lost.error';
import { HeldJob, HeldLease } from './held-job';
import { readJobProgress } from './job-progress.reader';

/** Extends the lease of a held job; rejects when the claim is gone. */
export type Heartbeat = (held: HeldJob) => Promise<void>;

/** Stores a progress report of a held job; rejects for a bad report or when the claim is gone. */
export type ProgressReport = (held: HeldJob, progress: unknown) => Promise<void>;

/** What an attempt may tell the pool while it runs. */
export interface AttemptReports {
  heartbeat: Heartbeat;
  progress: ProgressReport;
}

/** The pool that holds the jobs, as the reports see it. */
export interface LeaseHolder {
  /** A statement sent at `sentAt` (performance.now()) extended these leases. */
  leasesExtended(leases: Iterable<HeldLease>, sentAt: number): void;
  /** These claims are gone: stop their handlers and drop them, writing nothing. */
  markLost(leases: HeldLease[]): void;
}

/**
 * A handler's explicit heartbeat and its progress reports, one pair of functions for every attempt of a pool. Each is
 * one statement fenced by the attempt's lease token: when the claim is gone it changes nothing, the pool drops the
 * job (`markLost`) and the call rejects with LeaseLostError. Each extends the lease as well. A report once the attempt
 * is over (its handler settled or its attempt was given up) rejects with LeaseLostError at once and writes nothing: its
 * outcome is on its way, and the token would otherwise let it through until that write lands, storing progress on a
 * finished job, or not, by a race.
 */
export function createAttemptReports(db: ConveyorDatabase, leaseMs: number, pool: LeaseHolder, live?: LivePublisher): AttemptReports {
  const lost = (held: HeldJob): never => {
    pool.markLost([{ id: held.job.id, token: held.token }]);
    throw new LeaseLostError(held.job.id);
  };
  const over = (held: HeldJob): boolean => held.state === 'finishing' || held.lost;
  return {
    heartbeat: async (held) => {
      if (over(held)) throw new LeaseLostError(held.job.id);
      const sentAt = performance.now();
      const { rows } = await run<{ id: string }>(db.pool, jobExtendLease(db.tables, { id: held.job.id, token: held.token }, leaseMs));
      if (rows.length === 0) return lost(held);
      pool.leasesExtended([{ id: held.job.id, token: held.token }], sentAt);
    },
    progress: async (held, input) => {
      const progress = readJobProgress(input);
      if (over(held)) throw new LeaseLostError(held.job.id);
      held.reportedProgress = true;
      const sentAt = performance.now();
      const report = jobSetProgress(db.tables, held.job.id, held.token, JSON.stringify(progress), leaseMs);
      const { rows } = await run<{ id: string }>(db.pool, report);
      if (rows.length === 0) return lost(held);
      // The report extended the lease (see jobSetProgress): the heartbeat round may have passed its row by.
      pool.leasesExtended([{ id: held.job.id, token: held.token }], sentAt);
      live?.announce([{ id: held.job.id, status: JobStatus.RUNNING }]);
    },
  };
}
