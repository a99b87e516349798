import { ApiProperty } from '@nestjs/swagger';
import { anyJsonSchema } from './any-json.schema';

/**
 * One claimed job, as `POST /queues/:queue/claim` answers it: what a worker needs to run it, and the lease it
 * holds. The route answers plain objects of this shape; the class describes it (test/types ties it to the
 * client's ClaimedJob).
 */
export class ClaimedJobDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() queue: string;
  @ApiProperty() type: string;
  @ApiProperty({ ...anyJsonSchema(), description: 'The payload as submitted (any JSON).' }) payload: unknown;
  @ApiProperty() priority: number;
  @ApiProperty({ description: 'This attempt (1 for the first run).' }) attempts: number;
  @ApiProperty() maxAttempts: number;
  @ApiProperty({ format: 'date-time' }) runAt: Date;
  @ApiProperty({ format: 'date-time' }) createdAt: Date;
  @ApiProperty({ format: 'uuid', description: 'Present it on every heartbeat, completion and failure of this attempt.' })
  leaseToken: string;
  @ApiProperty({ format: 'date-time', description: 'The job is rescued after this unless a heartbeat extends it.' }) lockedUntil: Date;
}

/** Answer of `POST /queues/:queue/claim`: possibly empty. */
export class ClaimedJobsDto {
  @ApiProperty({ type: [ClaimedJobDto] }) jobs: ClaimedJobDto[];
}
