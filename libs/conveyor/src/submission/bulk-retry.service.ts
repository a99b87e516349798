import { Injectable } from '@nestjs/common';
import { LivePublisher } from '../observation/live/live-publisher.service';
import { JobStatus } from '../job/job-status';
import { MESSAGES } from '../errors/conveyor.messages';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { isUniqueViolation, UNIQUE_KEY_INDEX } from '../storage/connections/unique-violation';
import { isDeadlockDetected, runAgainOnDeadlock } from '../storage/connections/deadlock-detected';
import { JobStateConflictError } from '../errors/job-request.errors';
import { jobRetryMany, JobRetryManyFilter, jobsNotifyReady, run } from '../storage/statements';
import { JobRequestValidator } from './job-request.validator';

/** What one bulk retry did. */
export interface BulkRetryResult {
  /** How many jobs went back to PENDING; when it equals the limit, more may match: call again. */
  retried: number;
  /** Their ids. */
  ids: string[];
}

/**
 * Retrying many DEAD (or CANCELLED) jobs at once — the operator's answer to an outage that killed a
 * batch. One statement per call, bounded by `limit`, so a huge backlog is drained in steps instead of
 * one long transaction that holds thousands of row locks. Jobs whose unique key a waiting or running job
 * holds are left DEAD (see jobRetryMany), and so are jobs of a type no handler knows any more.
 */
@Injectable()
export class BulkRetryService {
  constructor(
    private readonly db: ConveyorDatabase,
    private readonly live: LivePublisher,
    private readonly validator: JobRequestValidator,
  ) {}

  async retryMany(filter: Omit<JobRetryManyFilter, 'types'>): Promise<BulkRetryResult> {
    const key = filter.key?.replace(/[\\%_]/g, (c) => `\\${c}`);
    const rows = await this.retryMatching({ ...filter, key, types: this.validator.knownTypes() });
    if (rows.length > 0) await run(this.db.pool, jobsNotifyReady(this.db.channel));
    this.live.announce(rows.map((r) => ({ id: r.id, status: JobStatus.PENDING })));
    return { retried: rows.length, ids: rows.map((r) => r.id) };
  }

  /**
   * The statement, run again when PostgreSQL aborted it to break a deadlock: holding the rows it retries and the
   * unique keys it has taken, it can meet a batch insert or another retry waiting for them.
   */
  private async retryMatching(filter: JobRetryManyFilter): Promise<Array<{ id: string }>> {
    try {
      return (await runAgainOnDeadlock(() => run<{ id: string }>(this.db.pool, jobRetryMany(this.db.tables, filter)))).rows;
    } catch (err) {
      // A submission racing the statement for a freed unique key (or deadlocks run after run); it rolled back.
      if (isUniqueViolation(err, UNIQUE_KEY_INDEX) || isDeadlockDetected(err))
        throw new JobStateConflictError(MESSAGES.bulkRetryUniqueKeyRace);
      throw err;
    }
  }
}
