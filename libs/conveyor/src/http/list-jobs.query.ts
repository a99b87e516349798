import { Type } from 'class-transformer';
import { IsEnum, IsInt, IsOptional, IsString, Length, Max, Min, NotContains } from 'class-validator';
import { JobStatus } from '../jobs/job-status';

/** PostgreSQL text cannot hold NUL; a filter with one would fail in the database instead of here. */
const NUL = '\u0000';
const NUL_MESSAGE = '$property must not contain NUL characters';

/** Query of `GET /jobs`. */
export class ListJobsQuery {
  @IsOptional()
  @IsEnum(JobStatus)
  status?: JobStatus;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  @NotContains(NUL, { message: NUL_MESSAGE })
  type?: string;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  @NotContains(NUL, { message: NUL_MESSAGE })
  queue?: string;

  /** Text within the idempotency key. */
  @IsOptional()
  @IsString()
  @Length(1, 255)
  @NotContains(NUL, { message: NUL_MESSAGE })
  key?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;

  @IsOptional()
  @IsString()
  @Length(1, 100)
  cursor?: string;
}
