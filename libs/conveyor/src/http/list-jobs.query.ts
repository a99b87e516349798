import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsEnum, IsInt, IsOptional, IsString, Length, Max, Min, NotContains } from 'class-validator';
import { JobStatus } from '../jobs/job-status';

/** PostgreSQL text cannot hold NUL; a filter with one would fail in the database instead of here. */
const NUL = '\u0000';
const NUL_MESSAGE = '$property must not contain NUL characters';

/** Query of `GET /jobs`. */
export class ListJobsQuery {
  @ApiPropertyOptional({ enum: JobStatus, enumName: 'JobStatus' })
  @IsOptional()
  @IsEnum(JobStatus)
  status?: JobStatus;

  @ApiPropertyOptional({ description: 'Job type, exactly.', example: 'SEND_EMAIL' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @NotContains(NUL, { message: NUL_MESSAGE })
  type?: string;

  @ApiPropertyOptional({ description: 'Queue name, exactly.', example: 'default' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @NotContains(NUL, { message: NUL_MESSAGE })
  queue?: string;

  /** Text within the idempotency key. */
  @ApiPropertyOptional({ description: 'Text anywhere in the idempotency key.', minLength: 1, maxLength: 255 })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  @NotContains(NUL, { message: NUL_MESSAGE })
  key?: string;

  @ApiPropertyOptional({ description: 'Jobs per page.', minimum: 1, maximum: 500, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;

  @ApiPropertyOptional({ description: '`nextCursor` of the previous page.' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  cursor?: string;
}
