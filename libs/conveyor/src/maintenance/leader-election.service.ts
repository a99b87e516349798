import { Inject, Injectable, Logger } from '@nestjs/common';
import { connectionErrorText } from '../storage/connections/connection-errors';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { LeaderTerm, leadershipClaim, leadershipResign } from '../storage/statements/leadership.sql';
import { run } from '../storage/statements/statement';

/** One claim of the leadership, from attempt() to settle() or failed(). */
export interface LeadershipAttempt {
  holder: string;
  /** The term held when the claim was sent (0 for none): renewing it keeps it. */
  heldTerm: number;
  leaseMs: number;
  /** performance.now() when the claim was sent: a term it returns has certainly ended `leaseMs` later. */
  sentAt: number;
  wasLeading: boolean;
}

/** How many maintenance intervals a term of leadership lasts unless renewed: one missed round is survived. */
export const LEADERSHIP_LEASE_INTERVALS = 2;

/**
 * Elects one maintenance leader per schema with a lease: a row naming the holder, its term and when the term
 * ends by the database's clock. Every instance asks once per maintenance round (inside the round's one statement on
 * the pool, no connection or session of its own, so it works through a transaction pooler): the leader renews its
 * term, the others take over only once it has expired.
 *
 * Whatever happens to a leader — killed, frozen, or cut off by a network that silently drops its packets — its
 * term ends at most `LEADERSHIP_LEASE_INTERVALS × maintenanceIntervalMs` after its last renewal, and another
 * instance leads within one more interval. A former leader cannot interfere meanwhile: its maintenance statements
 * check its term in the same statement (`leaderFence` in storage/statements/leadership.sql.ts, or the round's own
 * claim in maintenance-round.sql.ts), so once a new term began they change nothing. A leader that stops cleanly
 * resigns, and the next instance to ask takes over.
 */
@Injectable()
export class LeaderElection {
  private readonly logger = new Logger('Conveyor:Leader');
  private held: LeaderTerm | null = null;
  /** performance.now() by which the held term has certainly ended: its renewal was sent no earlier. */
  private heldUntil = 0;

  constructor(
    private readonly db: ConveyorDatabase,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
  ) {}

  /** Length of a term unless renewed. */
  get leaseMs(): number {
    return this.options.maintenanceIntervalMs * LEADERSHIP_LEASE_INTERVALS;
  }

  /** Whether this instance holds an unexpired term, as far as it knows. */
  get isLeader(): boolean {
    return this.held !== null && performance.now() < this.heldUntil;
  }

  /**
   * Takes or renews the leadership in a statement of its own (the maintenance round claims inside its one statement,
   * through attempt/settle/failed); returns the term to carry out maintenance with, or null when another instance leads.
   */
  async acquire(): Promise<LeaderTerm | null> {
    const attempt = this.attempt();
    try {
      const { rows } = await run<{ term: number }>(
        this.db.pool,
        leadershipClaim(this.db.tables, attempt.holder, attempt.heldTerm, attempt.leaseMs),
      );
      return this.settle(attempt, rows[0]?.term);
    } catch (err) {
      return this.failed(attempt, err as Error);
    }
  }

  /**
   * What a claim of the leadership sends (leadershipClaim's values), taken just before it is sent. The maintenance
   * round sends it inside its own statement and reports back with settle or failed.
   */
  attempt(): LeadershipAttempt {
    return {
      holder: this.options.workerId,
      heldTerm: this.held?.term ?? 0,
      leaseMs: this.leaseMs,
      sentAt: performance.now(),
      wasLeading: this.isLeader,
    };
  }

  /** The claim's answer: the term it returned, or undefined while another instance leads. */
  settle(attempt: LeadershipAttempt, term: number | undefined): LeaderTerm | null {
    if (term === undefined) {
      if (this.held) this.logger.warn('The maintenance leadership passed to another instance');
      this.held = null;
      return null;
    }
    if (this.held?.term !== term) this.logger.log(`This instance is now the maintenance leader (term ${term})`);
    this.held = { holder: attempt.holder, term };
    this.heldUntil = attempt.sentAt + attempt.leaseMs;
    return this.held;
  }

  /** The claim failed (the database could not be reached, say): a term held stays held until it ends by this clock. */
  failed(attempt: LeadershipAttempt, err: Error): LeaderTerm | null {
    if (attempt.wasLeading) this.logger.warn(`Could not renew the maintenance leadership: ${connectionErrorText(err)}`);
    return this.isLeader ? this.held : null;
  }

  /** Gives up the leadership, so that another instance takes over at its next round. */
  async release(): Promise<void> {
    const held = this.held;
    this.held = null;
    if (!held) return;
    await run(this.db.pool, leadershipResign(this.db.tables, held)).catch(() => undefined);
    this.logger.log('Maintenance leadership released');
  }
}
