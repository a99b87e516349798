import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { JOB_ERROR_KINDS, JobErrorKind } from '../../job/job-error-kind';
import { JOB_STATUSES, JobStatus } from '../../job/job-status';
import { MAX_PROGRESS_DATA_BYTES } from '../../job/job-progress';
import { anyJsonSchema } from './any-json.schema';
import { nullableRef } from './nullable-ref.schema';

/** One attempt in a job's error history that did not complete (JobErrorEntry, for the OpenAPI document). */
export class JobErrorEntryDto {
  @ApiProperty({ example: 2 })
  attempt: number;

  @ApiProperty({ format: 'date-time', description: 'When the attempt ended.' })
  at: string;

  @ApiProperty({ example: 'Error: connect ECONNREFUSED 10.0.0.7:587' })
  error: string;

  @ApiPropertyOptional({ description: 'Stack trace, when the handler threw an Error.' })
  stack?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Worker that ran the attempt.', example: 'web-1:4121:k2x9' })
  worker?: string | null;

  @ApiProperty({ enum: JOB_ERROR_KINDS, enumName: 'JobErrorKind', description: 'How the attempt ended.' })
  kind: JobErrorKind;

  @ApiPropertyOptional({ format: 'date-time', description: 'When a retry-later asked to run again.' })
  retryAt?: string;
}

/** What a running job last reported of its progress (JobProgress, for the OpenAPI document). */
export class JobProgressDto {
  @ApiProperty({ type: Number, nullable: true, minimum: 0, maximum: 100, example: 40, description: 'Percent done, 0–100.' })
  percent: number | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: `A small JSON object of the handler's own (at most ${MAX_PROGRESS_DATA_BYTES} bytes as JSON).`,
    example: { step: 'rendering', pages: 3 },
  })
  data: Record<string, unknown> | null;
}

/**
 * A job as the API returns it: the `JobView` shape, for the OpenAPI document (test/types/job-shape.test-d.ts
 * checks they are the same type). It has no lease token: only the claim's answer (ClaimedJobDto) carries one,
 * for the worker that made the claim.
 */
@ApiExtraModels(JobProgressDto)
export class JobDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ description: 'Insertion order (a bigint, as a string).', example: '1042' })
  seq: string;

  @ApiProperty({ example: 'default' })
  queue: string;

  @ApiProperty({ example: 'SEND_EMAIL' })
  type: string;

  @ApiProperty({
    ...anyJsonSchema(),
    description: 'The submitted payload, as stored (any JSON).',
    example: { to: 'ada@example.com', subject: 'Welcome' },
  })
  payload: unknown;

  @ApiProperty({ enum: JOB_STATUSES, enumName: 'JobStatus' })
  status: JobStatus;

  @ApiProperty({ description: 'Lower runs first.', example: 0 })
  priority: number;

  @ApiProperty({ format: 'date-time', description: 'When the job is (or was) due.' })
  runAt: Date;

  @ApiProperty({ description: 'Attempts started so far.' })
  attempts: number;

  @ApiProperty()
  maxAttempts: number;

  @ApiProperty({ description: 'Times the handler asked to run later (not counted as attempts).' })
  snoozes: number;

  @ApiProperty({ type: String, nullable: true, description: 'Most recent error of any attempt.' })
  lastError: string | null;

  @ApiProperty({ ...anyJsonSchema({ nullable: true }), description: 'What the handler returned (any JSON).' })
  result: unknown;

  @ApiProperty({ type: [JobErrorEntryDto], description: 'One entry per attempt that did not complete, oldest first.' })
  errors: JobErrorEntryDto[];

  @ApiProperty({ type: String, nullable: true })
  idempotencyKey: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'At most one waiting or running job per (type, uniqueKey).' })
  uniqueKey: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Worker holding the job while RUNNING.' })
  lockedBy: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'End of the current lease.' })
  lockedUntil: Date | null;

  @ApiProperty({ description: 'Bumped by every change of the row.' })
  version: number;

  @ApiProperty({ format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ format: 'date-time' })
  updatedAt: Date;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Start of the latest attempt.' })
  startedAt: Date | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When it became COMPLETED, DEAD or CANCELLED.' })
  finishedAt: Date | null;

  @ApiProperty({
    ...nullableRef(JobProgressDto),
    description: 'What the current or latest attempt last reported of its progress; null before it reports any.',
  })
  progress: JobProgressDto | null;
}

/** A page of `GET /jobs`. */
export class JobPageDto {
  @ApiProperty({ type: [JobDto] })
  items: JobDto[];

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Pass as `cursor` for the next page; null on the last one. A page of large jobs may hold fewer than `limit` and still have one.',
  })
  nextCursor: string | null;
}

/** Answer of `POST /jobs/batch`. */
export class JobBatchDto {
  @ApiProperty({ type: [JobDto], description: 'The stored jobs, in request order.' })
  jobs: JobDto[];
}
