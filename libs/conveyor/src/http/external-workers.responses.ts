import { ApiProperty } from '@nestjs/swagger';
import { JobStatus } from '../job/job-status';

/**
 * Response shapes of the external-worker routes, for the OpenAPI document. The routes answer plain
 * objects of these shapes; the classes only describe them.
 */

/** One claimed job: what a worker needs to run it, and the lease it holds. */
export class ClaimedJobResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() queue: string;
  @ApiProperty() type: string;
  @ApiProperty({ description: 'The payload as submitted (any JSON).' }) payload: unknown;
  @ApiProperty() priority: number;
  @ApiProperty({ description: 'This attempt (1 for the first run).' }) attempts: number;
  @ApiProperty() maxAttempts: number;
  @ApiProperty({ format: 'date-time' }) runAt: Date;
  @ApiProperty({ format: 'date-time' }) createdAt: Date;
  @ApiProperty({ format: 'uuid', description: 'Present it on every heartbeat, completion and failure of this attempt.' }) leaseToken: string;
  @ApiProperty({ format: 'date-time', description: 'The job is rescued after this unless a heartbeat extends it.' }) lockedUntil: Date;
}

/** Answer of `POST /queues/:queue/claim`: possibly empty. */
export class ClaimJobsResponse {
  @ApiProperty({ type: [ClaimedJobResponse] }) jobs: ClaimedJobResponse[];
}

/** Answer of `POST /jobs/:id/heartbeat`. */
export class LeaseResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) lockedUntil: Date;
}

/** Answer of `POST /jobs/:id/complete` and `/fail`. */
export class OutcomeResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: [JobStatus.COMPLETED, JobStatus.RETRYING, JobStatus.DEAD] }) status: JobStatus;
  @ApiProperty({ type: Number, nullable: true, description: 'When RETRYING: ms until the job is due again.' }) retryInMs: number | null;
}
