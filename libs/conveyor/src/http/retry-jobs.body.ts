import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min, NotContains } from 'class-validator';
import { JobStatus } from '../jobs/job-status';

/** PostgreSQL text cannot hold NUL; a filter with one would fail in the database instead of here. */
const NUL = '\u0000';
const NUL_MESSAGE = '$property must not contain NUL characters';

/** Most jobs one `POST /jobs/retry` takes: one bounded statement, repeated by the caller while it fills up. */
export const MAX_BULK_RETRY = 1000;

/** Body of `POST /jobs/retry`: which DEAD (or CANCELLED) jobs to retry. Filters match like `GET /jobs`. */
export class RetryJobsBody {
  @ApiPropertyOptional({ enum: [JobStatus.DEAD, JobStatus.CANCELLED], default: JobStatus.DEAD })
  @IsOptional()
  @IsIn([JobStatus.DEAD, JobStatus.CANCELLED])
  status?: JobStatus.DEAD | JobStatus.CANCELLED;

  @ApiPropertyOptional({ description: 'Queue name, exactly.', example: 'emails' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @NotContains(NUL, { message: NUL_MESSAGE })
  queue?: string;

  @ApiPropertyOptional({ description: 'Job type, exactly.', example: 'SEND_EMAIL' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @NotContains(NUL, { message: NUL_MESSAGE })
  type?: string;

  @ApiPropertyOptional({ description: 'Text anywhere in the idempotency key.' })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  @NotContains(NUL, { message: NUL_MESSAGE })
  key?: string;

  @ApiPropertyOptional({ description: 'Most jobs to retry in this call (oldest first).', minimum: 1, maximum: MAX_BULK_RETRY, default: MAX_BULK_RETRY })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_BULK_RETRY)
  limit?: number;
}
