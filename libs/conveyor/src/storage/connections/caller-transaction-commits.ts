import type { DataSource, EntitySubscriberInterface, QueryRunner, TransactionCommitEvent, TransactionRollbackEvent } from 'typeorm';

/** Work held for a caller's transaction, with the transaction depth (savepoints) it was held at. */
interface Held {
  depth: number;
  run: () => void;
}

/**
 * Work that is to happen only once a caller's transaction commits (counting the jobs enqueued in it): held per
 * QueryRunner, run when its outermost transaction commits, dropped when the transaction rolls back, or the savepoint
 * it was held in. A TypeORM subscriber of the DataSource the caller's manager belongs to (one per DataSource), which
 * TypeORM tells of every transaction it starts, commits and rolls back. Work in no transaction TypeORM started cannot
 * be told of the end, and runs at once.
 */
export class CallerTransactionCommits implements EntitySubscriberInterface {
  private readonly held = new WeakMap<QueryRunner, Held[]>();

  constructor(private readonly dataSource: DataSource) {
    dataSource.subscribers.push(this);
  }

  /** Stops following the DataSource's transactions (the app closes; the DataSource may be the host's and live on). */
  detach(): void {
    const i = this.dataSource.subscribers.indexOf(this);
    if (i >= 0) this.dataSource.subscribers.splice(i, 1);
  }

  /** Runs `run` once `queryRunner`'s transaction commits; never, if it rolls back first. */
  afterCommit(queryRunner: QueryRunner, run: () => void): void {
    if (queryRunner.dataSource !== this.dataSource || !queryRunner.isTransactionActive) return run();
    const held = this.held.get(queryRunner) ?? [];
    held.push({ depth: depthOf(queryRunner), run });
    this.held.set(queryRunner, held);
  }

  afterTransactionCommit({ queryRunner }: TransactionCommitEvent): void {
    const held = this.held.get(queryRunner);
    if (!held) return;
    if (queryRunner.isTransactionActive) {
      // A released savepoint: what it held now belongs to the transaction around it, and rolls back with that, not
      // with a later savepoint at the depth it was held at.
      const depth = depthOf(queryRunner);
      for (const h of held) h.depth = Math.min(h.depth, depth);
      return;
    }
    this.held.delete(queryRunner);
    for (const h of held) h.run();
  }

  afterTransactionRollback({ queryRunner }: TransactionRollbackEvent): void {
    const held = this.held.get(queryRunner);
    if (!held) return;
    if (!queryRunner.isTransactionActive) return void this.held.delete(queryRunner);
    // Rolled back to a savepoint: what was held inside it goes with it.
    const depth = depthOf(queryRunner);
    this.held.set(
      queryRunner,
      held.filter((h) => h.depth <= depth),
    );
  }
}

/**
 * How many transactions deep the QueryRunner is (1 in a transaction, 2 inside its first savepoint, …): TypeORM keeps
 * it in a protected field, which its own commit and rollback read to choose between a savepoint and the transaction.
 */
function depthOf(queryRunner: QueryRunner): number {
  return (queryRunner as unknown as { transactionDepth: number }).transactionDepth;
}
