import { Type } from 'class-transformer';
import { IsEnum, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { JobStatus } from '../jobs/job-status';

/** Query of `GET /jobs`. */
export class ListJobsQuery {
  @IsOptional()
  @IsEnum(JobStatus)
  status?: JobStatus;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  type?: string;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  queue?: string;

  /** Text within the idempotency key. */
  @IsOptional()
  @IsString()
  @Length(1, 255)
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
