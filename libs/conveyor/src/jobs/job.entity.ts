import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  VersionColumn,
} from 'typeorm';
import { JobErrorEntry } from './job-error-entry.interface';
import { JobStatus } from './job-status';

/**
 * A job row. The table itself is created by the checked-in SQL migrations (see ../migrations),
 * which also add the partial indexes the claim query needs; this entity maps it for reads.
 *
 * `version` is a TypeORM @VersionColumn: every engine statement that changes a job also bumps it,
 * which is what the `optimistic` claim strategy compares-and-sets on.
 */
@Entity({ name: 'conveyor_jobs' })
export class JobEntity<P = unknown, R = unknown> {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Monotonic insertion order (informational: the list pages by the time-ordered id). */
  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @Column({ type: 'text' })
  queue: string;

  @Column({ type: 'text' })
  type: string;

  @Column({ type: 'jsonb' })
  payload: P;

  @Column({ type: 'text' })
  status: JobStatus;

  /** Lower runs first. */
  @Column({ type: 'int' })
  priority: number;

  @Column({ name: 'run_at', type: 'timestamptz' })
  runAt: Date;

  @Column({ type: 'int' })
  attempts: number;

  @Column({ name: 'max_attempts', type: 'int' })
  maxAttempts: number;

  /** How many times the handler asked to run later (does not use up attempts). */
  @Column({ type: 'int' })
  snoozes: number;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ type: 'jsonb', nullable: true })
  result: R | null;

  @Column({ type: 'jsonb' })
  errors: JobErrorEntry[];

  @Column({ name: 'idempotency_key', type: 'text', nullable: true })
  idempotencyKey: string | null;

  /** At most one waiting or running job per (type, uniqueKey). */
  @Column({ name: 'unique_key', type: 'text', nullable: true })
  uniqueKey: string | null;

  @Column({ name: 'idempotency_hash', type: 'text', nullable: true, select: false })
  idempotencyHash?: string | null;

  @Column({ name: 'locked_by', type: 'text', nullable: true })
  lockedBy: string | null;

  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil: Date | null;

  /** Fencing token of the current claim: every write-back must present it. The REST API hands it out only in a claim's answer. */
  @Column({ name: 'lease_token', type: 'uuid', nullable: true })
  leaseToken: string | null;

  @VersionColumn()
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}

/** The shape handlers and API callers see. */
export type Job<P = unknown, R = unknown> = JobEntity<P, R>;
