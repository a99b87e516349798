import { Injectable } from '@nestjs/common';
import { JobRequestError, JobStateConflictError } from '../errors/job-request.errors';
import { JobStatus } from '../job/job-status';
import { JobsService } from './jobs.service';

/** What an operator can do to many chosen jobs at once. */
export const BULK_ACTIONS = ['cancel', 'retry', 'delete'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** What one action did to one job. */
export interface BulkItemResult {
  id: string;
  /** Whether the action was applied to this job. */
  ok: boolean;
  /** The job's status now: CANCELLED, PENDING; null when deleted or missing. */
  status: JobStatus | null;
  /** When not ok: 404 (no such job) or 409 (its state, or a unique key, does not allow the action). */
  statusCode?: number;
  /** When not ok: why, in the words the single-job route would use. */
  message?: string;
}

/** What a bulk action did, job by job, in the order the ids were given (a repeated id once). */
export interface BulkActionResult {
  action: BulkAction;
  succeeded: number;
  failed: number;
  results: BulkItemResult[];
}

/**
 * Cancel, retry or delete chosen jobs. Each id is settled as the single-job operation would (cancel, retry, purge of
 * JobsService), with its guards, notices and wake-ups, so a job in the wrong state or gone is reported in its result
 * and never stops the others; only an unreachable database ends the whole request. A cancel first takes every listed
 * job whose state allows it in one statement (one commit, not one per job); only the rest go through the single
 * cancel. The caller bounds the number of ids.
 */
@Injectable()
export class BulkActionsService {
  constructor(private readonly jobs: JobsService) {}

  async apply(action: BulkAction, ids: readonly string[]): Promise<BulkActionResult> {
    const distinct = [...new Set(ids.map((i) => i.toLowerCase()))];
    const cancelled = action === 'cancel' ? await this.cancelAllowed(distinct) : new Map<string, BulkItemResult>();
    const results: BulkItemResult[] = [];
    for (const id of distinct) results.push(cancelled.get(id) ?? (await this.applyOne(action, id)));
    const succeeded = results.filter((r) => r.ok).length;
    return { action, succeeded, failed: results.length - succeeded, results };
  }

  /**
   * Cancels, in one statement and one commit, every listed job whose state allows it; the others (missing, finished,
   * or changing meanwhile) go through the single cancel afterwards, which reports or retries them as it would alone.
   */
  private async cancelAllowed(ids: readonly string[]): Promise<Map<string, BulkItemResult>> {
    const jobs = await this.jobs.cancelMany(ids);
    return new Map(jobs.map((job) => [job.id, { id: job.id, ok: true, status: job.status }]));
  }

  private async applyOne(action: BulkAction, id: string): Promise<BulkItemResult> {
    try {
      if (action === 'delete') {
        await this.jobs.purge(id);
        return { id, ok: true, status: null };
      }
      const job = action === 'cancel' ? await this.jobs.cancel(id) : await this.jobs.retry(id);
      return { id, ok: true, status: job.status };
    } catch (err) {
      if (!(err instanceof JobRequestError) || (err.status !== 404 && err.status !== 409)) throw err;
      const known = err instanceof JobStateConflictError ? (err.jobStatus as JobStatus | undefined) : undefined;
      const status = err.status === 404 ? null : (known ?? (await this.statusOf(id)));
      return { id, ok: false, status, statusCode: err.status, message: err.message };
    }
  }

  /** The job's status after a refusal (it may have moved on since), or null once it is gone. */
  private async statusOf(id: string): Promise<JobStatus | null> {
    return this.jobs.get(id).then(
      (job) => job.status,
      () => null,
    );
  }
}
