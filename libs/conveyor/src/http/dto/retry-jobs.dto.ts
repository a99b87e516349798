import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { JobStatus } from '../../job/job-status';
import { JobFilterDto } from './job-filter.dto';

/** Most jobs one `POST /jobs/retry` takes: one bounded statement, repeated by the caller while it fills up. */
export const MAX_BULK_RETRY = 1000;

/** Body of `POST /jobs/retry`: which DEAD (or CANCELLED) jobs to retry. Filters match like `GET /jobs`. */
export class RetryJobsDto extends JobFilterDto {
  @ApiPropertyOptional({ enum: [JobStatus.DEAD, JobStatus.CANCELLED], default: JobStatus.DEAD })
  @IsOptional()
  @IsIn([JobStatus.DEAD, JobStatus.CANCELLED])
  status?: typeof JobStatus.DEAD | typeof JobStatus.CANCELLED;

  @ApiPropertyOptional({
    description: 'Most jobs to retry in this call (oldest first).',
    minimum: 1,
    maximum: MAX_BULK_RETRY,
    default: MAX_BULK_RETRY,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_BULK_RETRY)
  limit?: number;
}
