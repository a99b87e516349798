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
   * Inserts keyless `rows` outside a caller's transaction. When this instance's workers would take all of them at
   * once, `insert` runs quietly (`quiet` true: its trigger notifies nobody) on the worker connection with their
   * claim right behind it, and whatever the claim leaves is announced; otherwise it runs on the pool and announces
   * itself. `insert` must put its one statement on the runner it is given before it first waits.
   */
  insertKeyless<T>(rows: readonly NewJobRow[], insert: (runner: SqlRunner, quiet: boolean) => Promise<T>): Promise<T>;

  /** Inserts of this instance committed on their own (outside a caller's transaction): wake its workers for them. */
  committed(inserts: readonly CommittedInsert[]): void;
}
