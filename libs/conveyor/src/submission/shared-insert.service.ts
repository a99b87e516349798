import { Inject, Injectable } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { hasKeys, NewJobRow } from '../storage/statements';
import { JobRow } from '../storage/statements/job-row.mapper';
import { FailedRow, InsertedEach, insertJobsEach } from './insert-jobs';
import { CommittedInsert } from './insert-rows';
import { LOCAL_PICKUP, LocalPickup } from './local-pickup.port';
import { MAX_STATEMENT_PAYLOAD_CHARS, payloadChars, SOLO_PAYLOAD_CHARS } from './statement-budget';
import { SubmissionBatcher } from './submission-batcher';

/** What a shared insert answers one submission with. */
export interface SharedInsertAnswer {
  /** The new job, or the one holding the submission's idempotency or unique key. */
  stored: JobRow;
  /** Whether this submission created `stored` (false: a repeated idempotency key, or a held unique key). */
  created: boolean;
}

/**
 * Single submissions outside a caller's transaction (`POST /jobs`, `enqueue` without a manager) inserted together:
 * while one group's statements are in flight, the next submissions wait and then share the next statements and
 * their commits (SubmissionBatcher). A lone submission goes at once.
 *
 * Submissions with keys go in a lane of their own: their insert waits for any transaction that has taken one of
 * their keys and not yet ended (a caller's, open for as long as it likes), and the submissions without keys must not
 * wait with it. A group is split by kind: its rows without keys take the keyless batch insert (quiet, with the claim
 * behind it, when this instance's workers would take all of them: LocalPickup), its rows with keys the keyed insert
 * with its conflict handling (insert-jobs.ts); the two go side by side. Every submission is answered as it would have been
 * alone: its own new job (created), or the holder of its key; a key conflict, or a row that makes the statement
 * fail, fails that submission only (InsertOptions.independent). A connection failure fails the submissions of
 * the statement it hit.
 */
@Injectable()
export class SharedInsertService {
  private readonly batcher: SubmissionBatcher<NewJobRow, SharedInsertAnswer>;
  /** The lane of submissions with large payloads (SOLO_PAYLOAD_CHARS), beside `batcher`'s. */
  private readonly largeBatcher: SubmissionBatcher<NewJobRow, SharedInsertAnswer>;
  /** The lane of submissions with keys (see the class), beside `batcher`'s. */
  private readonly keyedBatcher: SubmissionBatcher<NewJobRow, SharedInsertAnswer>;
  /** The lane of submissions with large payloads and keys, for the reasons of both. */
  private readonly largeKeyedBatcher: SubmissionBatcher<NewJobRow, SharedInsertAnswer>;

  constructor(
    private readonly db: ConveyorDatabase,
    @Inject(LOCAL_PICKUP) private readonly pickup: LocalPickup,
    @Inject(CONVEYOR_OPTIONS) options: Pick<ConveyorOptions, 'maxBatchSize'>,
  ) {
    // A group is one statement's worth of rows (statement-budget.ts): as many as a batch submission may hold,
    // within MAX_STATEMENT_PAYLOAD_CHARS.
    const lane = () =>
      new SubmissionBatcher<NewJobRow, SharedInsertAnswer>((rows) => this.insertGroup(rows), options.maxBatchSize, {
        weigh: payloadChars,
        maxWeight: MAX_STATEMENT_PAYLOAD_CHARS,
      });
    this.batcher = lane();
    this.largeBatcher = lane();
    this.keyedBatcher = lane();
    this.largeKeyedBatcher = lane();
  }

  /**
   * Inserts one validated row, with whatever other submissions are waiting. A row with a large payload goes in a lane
   * of its own: storing it takes the database long enough that the small ones arriving meanwhile would wait for it,
   * and its lane, like theirs, has one group in flight, so large submissions in numbers do not take every pooled
   * connection. Rows with keys go apart from those without in either size (see the class).
   */
  insert(row: NewJobRow): Promise<SharedInsertAnswer> {
    const keyed = hasKeys(row);
    if (payloadChars(row) > SOLO_PAYLOAD_CHARS) return (keyed ? this.largeKeyedBatcher : this.largeBatcher).submit(row);
    return (keyed ? this.keyedBatcher : this.batcher).submit(row);
  }

  /** Submissions waiting for the group in flight (for tests and diagnostics). */
  get waiting(): number {
    return this.batcher.waiting + this.largeBatcher.waiting + this.keyedBatcher.waiting + this.largeKeyedBatcher.waiting;
  }

  private async insertGroup(rows: NewJobRow[]): Promise<Array<PromiseSettledResult<SharedInsertAnswer>>> {
    const keyless: number[] = [];
    const keyed: number[] = [];
    for (let i = 0; i < rows.length; i++) (hasKeys(rows[i]) ? keyed : keyless).push(i);
    // The keyless insert first, in this tick: a quiet insert must be on the worker connection before anything waits.
    const parts = await Promise.allSettled([this.insertKeyless(keyless.map((i) => rows[i])), this.insertKeyed(keyed.map((i) => rows[i]))]);
    const results = new Array<PromiseSettledResult<SharedInsertAnswer>>(rows.length);
    const committed: CommittedInsert[] = [];
    [keyless, keyed].forEach((indexes, p) => {
      const part = parts[p];
      if (part.status === 'fulfilled') committed.push(...part.value.committed);
      indexes.forEach((i, k) => (results[i] = part.status === 'fulfilled' ? answer(rows[i], part.value.answers[k]) : part));
    });
    this.pickup.committed(committed);
    return results;
  }

  private insertKeyless(rows: NewJobRow[]): Promise<InsertedEach> {
    if (rows.length === 0) return Promise.resolve(NOTHING);
    const independent = { retryOn: this.db.pool };
    return this.pickup.insertKeyless(rows, (runner, quiet) => insertJobsEach(runner, this.db.tables, rows, { quiet, independent }));
  }

  private insertKeyed(rows: NewJobRow[]): Promise<InsertedEach> {
    if (rows.length === 0) return Promise.resolve(NOTHING);
    return insertJobsEach(this.db.pool, this.db.tables, rows, { independent: { retryOn: this.db.pool } });
  }
}

const NOTHING: InsertedEach = { answers: [], created: [], committed: [] };

/** A submission's result from its row's answer: its own id means its own new job. */
function answer(row: NewJobRow, stored: JobRow | FailedRow): PromiseSettledResult<SharedInsertAnswer> {
  if (stored instanceof FailedRow) return { status: 'rejected', reason: stored.error };
  return { status: 'fulfilled', value: { stored, created: stored.id === row.id } };
}
