import { EntityManager } from 'typeorm';

/** Options of an in-code enqueue; the same fields a REST submission carries. */
export interface EnqueueOptions {
  queue?: string | undefined;
  /** Lower runs first. Default 0. */
  priority?: number | undefined;
  /** Run no earlier than this. */
  runAt?: Date | string | undefined;
  /** Run no earlier than this many ms from now (database clock; in a caller's transaction, from the enqueue, not its start). */
  delayMs?: number | undefined;
  maxAttempts?: number | undefined;
  /** Submitting twice with one key creates one job. */
  idempotencyKey?: string | undefined;
  /**
   * At most one waiting or running job per (type, uniqueKey): while one exists, enqueueing with the key
   * returns that job instead of creating another; once it finished, the key is free again.
   */
  uniqueKey?: string | undefined;
  /**
   * A transactional EntityManager (inside `dataSource.transaction(...)`): the job is inserted in
   * that transaction and exists only if it commits. Enqueue (and await) within the transaction: a manager whose
   * transaction has ended is refused with TypeORM's `QueryRunnerAlreadyReleasedError`, and one of a DataSource on
   * another database than Conveyor's with a JobValidationError naming `manager`.
   */
  manager?: EntityManager | undefined;
}

/** A full submission: what `POST /jobs` takes. */
export interface JobRequest extends Omit<EnqueueOptions, 'manager'> {
  type: string;
  payload?: unknown;
}

/** A stored job plus whether this call created it (false: an idempotent repeat). */
export interface SubmitResult<J> {
  job: J;
  created: boolean;
}
