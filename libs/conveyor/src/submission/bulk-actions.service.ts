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
 * One action as the bulk route applies it: to every listed job whose state allows it at once, and to one job as the
 * single-job route does.
 */
interface BulkOperation {
  /** Applies the action, in one statement and one commit, to the listed jobs whose state allows it; answers those. */
  many(ids: readonly string[]): Promise<{ id: string; status: JobStatus | null }[]>;
  /** The single-job operation: the job's status after it (null once deleted), or its refusal thrown. */
  one(id: string): Promise<JobStatus | null>;
}

/**
 * Cancel, retry or delete chosen jobs. Each id is settled as the single-job operation would (cancel, retry, purge of
 * JobsService), with its guards, notices and wake-ups, so a job in the wrong state or gone is reported in its result
 * and never stops the others; only an unreachable database ends the whole request. Every listed job whose state
 * allows the action is first taken in one statement (one commit, not one per job); only the rest (missing, in
 * another state, changing meanwhile, or all of them when a retry would take a held unique key or deadlocked on one)
 * go through the single-job operation, which reports or applies each as it would alone. The caller bounds the number
 * of ids.
 */
@Injectable()
export class BulkActionsService {
  private readonly operations: Record<BulkAction, BulkOperation>;

  constructor(private readonly jobs: JobsService) {
    this.operations = {
      cancel: { many: (ids) => jobs.cancelMany(ids), one: async (id) => (await jobs.cancel(id)).status },
      retry: { many: (ids) => jobs.retryMany(ids), one: async (id) => (await jobs.retry(id)).status },
      delete: {
        many: async (ids) => (await jobs.purgeMany(ids)).map((id) => ({ id, status: null })),
        one: async (id) => jobs.purge(id).then(() => null),
      },
    };
  }

  async apply(action: BulkAction, ids: readonly string[]): Promise<BulkActionResult> {
    const operation = this.operations[action];
    const distinct = [...new Set(ids.map((i) => i.toLowerCase()))];
    const taken = new Map((await operation.many(distinct)).map((job) => [job.id, { id: job.id, ok: true, status: job.status }]));
    const results: BulkItemResult[] = [];
    for (const id of distinct) results.push(taken.get(id) ?? (await this.applyOne(operation, id)));
    const succeeded = results.filter((r) => r.ok).length;
    return { action, succeeded, failed: results.length - succeeded, results };
  }

  private async applyOne(operation: BulkOperation, id: string): Promise<BulkItemResult> {
    try {
      return { id, ok: true, status: await operation.one(id) };
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
