import { ApiProperty } from '@nestjs/swagger';
import { JobStatus } from '../../job/job-status';

/** Answer of `POST /jobs/:id/complete`, `/fail` and `/hand-back`: what the report did to its job. */
export class JobOutcomeDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: [JobStatus.COMPLETED, JobStatus.RETRYING, JobStatus.DEAD, JobStatus.PENDING] }) status: JobStatus;
  @ApiProperty({ type: Number, nullable: true, description: 'When RETRYING: ms until the job is due again.' }) retryInMs: number | null;
}

/** Answer of `POST /jobs/:id/heartbeat`. */
export class JobLeaseDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) lockedUntil: Date;
}
