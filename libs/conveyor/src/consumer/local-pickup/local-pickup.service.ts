import { Injectable, Logger } from '@nestjs/common';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { SqlRunner } from '../../storage/connections/sql-runner.interface';
import { WorkerConnection } from '../../storage/connections/worker-connection.service';
import { jobsNotifyReady } from '../../storage/statements/jobs-notify-ready.sql';
import { NewJobRow } from '../../storage/statements/job-insert-many.sql';
import { run } from '../../storage/statements/statement';

/** What this instance's poller offers while it runs: to claim the jobs its own instance submits. */
export interface LocalTaker {
  /** Whether a claim made now would take all of `rows` (room in the pool, types run here, all due now). */
  canTakeAtOnce(rows: readonly NewJobRow[]): boolean;
  /**
   * An insert of these jobs is on the worker connection: claim them (the claim goes behind the insert, so it
   * sees them), and announce whichever the claim did not take.
   */
  take(ids: string[]): void;
}

/**
 * The fast path for jobs an idle instance submits itself: the insert and the claim of its jobs travel together,
 * and nobody else is told.
 *
 * When this instance's poller would take all of a submission at once and its worker connection (pipelined: see
 * WorkerConnection) has nothing in flight, the insert goes on that connection and the poller's claim is sent right
 * behind it, before the insert's answer is back: the backend commits the insert, then runs the claim, which sees
 * the new jobs. A job starts one round trip after its submission instead of two (insert, then claim), and no
 * other statement runs for it. A busy worker connection would make the insert wait behind claims and outcome
 * writes, and run every submission's commit one after another on one backend: then the insert goes on the pool.
 *
 * The insert is also quiet: its trigger sends no NOTIFY (sql/quiet-insert.ts). Every NOTIFY wakes every
 * listening backend of the database, this instance's own listener among them, and on a small machine that
 * wake-up ran beside the very claim it announced. Whatever the claim leaves (a queue at its cap, older jobs
 * ahead, another worker quicker) the poller announces with one NOTIFY; other instances hear of it one claim
 * later than they would have. If this instance dies between the insert and the claim, they find the jobs at
 * their fallback poll. Inserts in a caller's transaction, rows with keys, batches larger than the pool's room,
 * scheduled jobs and types run elsewhere go on the pool and announce themselves as before.
 */
@Injectable()
export class LocalPickup {
  private readonly logger = new Logger('Conveyor:Pickup');
  private taker: LocalTaker | null = null;

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly connection: WorkerConnection,
  ) {}

  /** The poller offers to take its instance's inserts until the returned function is called. */
  attach(taker: LocalTaker): () => void {
    this.taker = taker;
    return () => {
      if (this.taker === taker) this.taker = null;
    };
  }

  /**
   * Runs `insert` (which must put its one statement on the runner it is given before it first waits) on the
   * worker connection with the claim of `rows` behind it, when this instance's workers would take them all
   * at once; null when they would not, and the caller inserts as usual.
   *
   * Never behind a pooler in transaction mode: the fast path rests on the claim being sent before the insert is
   * answered, on the backend that runs the insert, and there the worker connection does not pipeline (see
   * WorkerConnection). The claim would go out a round trip later, as it does on the ordinary path (insert on the
   * pool, the `inserted` event waking the poller), which keeps submissions off the worker connection.
   */
  quietly<T>(rows: readonly NewJobRow[], insert: (runner: SqlRunner) => Promise<T>): Promise<T> | null {
    const taker = this.taker;
    if (!taker || this.db.pooler !== 'none' || !this.connection.isIdle || !taker.canTakeAtOnce(rows)) return null;
    const inserted = insert(this.connection.runner);
    taker.take(rows.map((r) => r.id));
    return inserted;
  }

  /** Tells every listening instance that jobs are ready; never rejects (their fallback poll covers a failure). */
  async announce(): Promise<void> {
    try {
      await run(this.db.pool, jobsNotifyReady(this.db.channel));
    } catch (err) {
      this.logger.warn(`Could not announce ready jobs (other instances find them at their next poll): ${(err as Error).message}`);
    }
  }
}
