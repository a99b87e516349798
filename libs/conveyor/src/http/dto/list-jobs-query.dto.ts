import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEnum, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { JOB_STATUSES, JobStatus } from '../../job/job-status';
import { JobFilterDto } from './job-filter.dto';
import { QueryInt } from './query-int.decorator';

/** Query of `GET /jobs`. */
export class ListJobsQueryDto extends JobFilterDto {
  @ApiPropertyOptional({ enum: JOB_STATUSES, enumName: 'JobStatus' })
  @IsOptional()
  @IsEnum(JobStatus)
  status?: JobStatus;

  @ApiPropertyOptional({ description: 'Jobs per page.', minimum: 1, maximum: 500, default: 50 })
  @IsOptional()
  @QueryInt()
  @Min(1)
  @Max(500)
  limit?: number;

  @ApiPropertyOptional({ description: '`nextCursor` of the previous page.' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  cursor?: string;
}
