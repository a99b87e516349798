import type { SqlRunner } from '../storage/connections/sql-runner.interface';
import type { NewJobRow } from '../storage/statements/new-job-row';
import type { CommittedInsert } from './insert-rows';

/** DI token of the {@link LocalPickup} the job service hands its inserts to. */
export const LOCAL_PICKUP = Symbol('LOCAL_PICKUP');

/**
 * Local pickup: this instance's workers claim what this instance just inserted, without waiting to hear of it
 * from the database. The submission side only hands over its inserts; the consumer side (consumer/local-pickup/)
 * decides whether and how its workers take them.
 */
export interface LocalPickup {
  /**
   * Runs `insert` with this instance's claim right behind it, when its workers would take all of `rows` at once
   * (a quiet insert: nobody else is told unless the claim leaves some); null when they would not, and the caller
   * inserts as usual. `insert` must put its one statement on the runner it is given before it first waits, and
   * its statement must commit on its own.
   */
  quietly<T>(rows: readonly NewJobRow[], insert: (runner: SqlRunner) => Promise<T>): Promise<T> | null;

  /** Inserts of this instance committed on their own (outside a caller's transaction): wake its workers for them. */
  committed(inserts: readonly CommittedInsert[]): void;
}
