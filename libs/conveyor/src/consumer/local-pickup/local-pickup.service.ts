import { Injectable, Logger } from '@nestjs/common';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { SqlRunner } from '../../storage/connections/sql-runner.interface';
import { WorkerConnection } from '../../storage/connections/worker-connection.service';
import { jobsNotifyReady } from '../../storage/statements/jobs-notify-ready.sql';
import { NewJobRow } from '../../storage/statements/new-job-row';
import { run } from '../../storage/statements/statement';
import type { CommittedInsert } from '../../submission/insert-rows';
import { LocalPickup } from '../../submission/local-pickup.port';
import { payloadChars, SOLO_PAYLOAD_CHARS } from '../../submission/statement-budget';
import { ClaimTrigger } from '../claim-trigger';
import { PickupHooks } from '../pickup-hooks';
import { WorkerPool } from '../worker-pool.service';
import { OwnInsertEchoes } from './own-insert-echoes';
import { UnclaimedQuietJobs } from './unclaimed-quiet-jobs';

/**
 * Local pickup: this instance's workers claim the jobs this instance inserts without waiting to hear of them from
 * the database. Two modes, chosen per insert:
 *
 * - Quiet insert (`quietly`). When the workers would take all of a submission at once and the worker connection
 *   (pipelined: see WorkerConnection) has nothing in flight, the insert goes on that connection with the poller's
 *   claim sent right behind it, before the insert's answer is back: the backend commits the insert, then runs the
 *   claim, which sees the new jobs. The insert's trigger sends no NOTIFY (storage/statements/quiet-insert.ts).
 *   Whatever the claim leaves (a queue at its cap, older jobs ahead, another worker quicker) is announced with one
 *   NOTIFY (UnclaimedQuietJobs tracks it); if this instance dies in between, the others find the jobs at their
 *   fallback poll. A busy worker connection would make the insert wait behind claims and outcome writes, and
 *   serialise every submission's commit on one backend: then the insert goes on the pool. So does an insert carrying
 *   more than SOLO_PAYLOAD_CHARS of payload: the claims and outcome writes sent behind it would wait for the database
 *   to store it.
 * - Announced insert (`committed`). Any other insert outside a caller's transaction commits on the pool (one
 *   statement, or a transaction of the engine's own for a batch with keys or larger than one statement) and sends
 *   its NOTIFY; its result wakes the poller at once (also without LISTEN, or behind a pooler that cannot carry it),
 *   and the NOTIFY that echoes it wakes nothing (OwnInsertEchoes), so the pair costs one claim.
 *
 * Never quiet behind a pooler in transaction mode: the quiet insert rests on the claim being sent before the insert
 * is answered, on the backend that runs the insert, and there the worker connection does not pipeline. Inserts in a
 * caller's transaction, rows with keys, batches larger than the pool's room, scheduled jobs and types run elsewhere
 * are announced inserts.
 */
@Injectable()
export class LocalPickupService implements LocalPickup, PickupHooks {
  private readonly logger = new Logger('Conveyor:Pickup');
  /** This instance's announced inserts and their NOTIFY echoes, paired. */
  private readonly echoes = new OwnInsertEchoes();
  /** Jobs of this instance's quiet inserts not claimed yet. */
  private readonly unclaimed = new UnclaimedQuietJobs();

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly connection: WorkerConnection,
    private readonly pool: WorkerPool,
    private readonly trigger: ClaimTrigger,
  ) {}

  insertKeyless<T>(rows: readonly NewJobRow[], insert: (runner: SqlRunner, quiet: boolean) => Promise<T>): Promise<T> {
    if (
      !this.trigger.attached ||
      this.db.pooler !== 'none' ||
      !this.connection.isIdle ||
      carriesLargePayload(rows) ||
      !this.takesAtOnce(rows)
    ) {
      return insert(this.db.pool, false);
    }
    const inserted = insert(this.connection.runner, true);
    // In the same tick as the insert was put on the worker connection: the claim goes right behind it.
    this.unclaimed.add(rows.map((r) => r.id));
    this.trigger.jobsDueNow();
    return inserted;
  }

  committed(inserts: readonly CommittedInsert[]): void {
    if (!this.trigger.attached) return;
    for (const { backendPid, earliestRunAt, dueAtInsert, laterRunAts } of inserts) {
      if (!this.echoes.insertCommitted(backendPid, earliestRunAt, Date.now())) continue;
      // A row due at the insert is due now that it committed; a later run_at, truncated here, is due by the next ms.
      if (dueAtInsert) this.trigger.jobsDueNow();
      else this.trigger.jobsDueAt(earliestRunAt + 1);
      for (const at of laterRunAts) this.trigger.jobsDueAt(at + 1);
    }
  }

  /** A NOTIFY from backend `pid` announcing run_at `at`: true when it echoes an insert already woken for. */
  isEcho(pid: number, at: number): boolean {
    return !this.echoes.notified(pid, at, Date.now());
  }

  /** Inserts and notifications still waiting for their partner (for tests and diagnostics). */
  get unpairedEchoes(): number {
    return this.echoes.unmatched;
  }

  /** The poller is about to send a claim: its number, for `claimReturned`. */
  claimStarting(): number {
    return this.unclaimed.claimStarting();
  }

  /** Claim `claimNo` took `jobs`: the quiet jobs it could see and left are announced to the other instances. */
  claimReturned(claimNo: number, jobs: readonly { id: string }[]): void {
    if (this.unclaimed.claimed(claimNo, jobs)) void this.announce();
  }

  /** No claim will come for the quiet jobs waiting (no room, a failed claim, shutdown): they are announced. */
  noClaimComing(): void {
    if (this.unclaimed.clear()) void this.announce();
  }

  /**
   * Whether a claim now would take all of `rows`: every one due now, of a type run here, and room for them beside
   * the quiet jobs not claimed yet (queue and type caps aside: what a cap holds back is announced).
   */
  private takesAtOnce(rows: readonly NewJobRow[]): boolean {
    for (const row of rows) if (row.run_at !== null || (row.delay_ms !== null && row.delay_ms > 0)) return false;
    return this.pool.runsAtOnce(rows, this.unclaimed.count);
  }

  /** Tells every listening instance that jobs are ready; never rejects (their fallback poll covers a failure). */
  private async announce(): Promise<void> {
    try {
      await run(this.db.pool, jobsNotifyReady(this.db.channel));
    } catch (err) {
      this.logger.warn(`Could not announce ready jobs (other instances find them at their next poll): ${(err as Error).message}`);
    }
  }
}

/** Whether the rows' payloads add up to more than SOLO_PAYLOAD_CHARS (their JSON text is made once, and kept for the insert). */
function carriesLargePayload(rows: readonly NewJobRow[]): boolean {
  let chars = 0;
  for (const row of rows) if ((chars += payloadChars(row)) > SOLO_PAYLOAD_CHARS) return true;
  return false;
}
