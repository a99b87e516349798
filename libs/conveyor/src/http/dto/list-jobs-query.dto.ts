import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEnum, IsISO8601, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { JOB_STATUSES, JobStatus } from '../../job/job-status';
import { JobFilterDto } from './job-filter.dto';
import { IsJsonObjectText } from './json-object-text.decorator';
import { QueryInt } from './query-int.decorator';

/** Longest `payload` filter accepted: a search, not a document. */
export const MAX_PAYLOAD_FILTER_LENGTH = 4000;

/** A date, or a date-time with its offset: a time without one would be read in some server's time zone. */
const ZONED = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/i;
const ZONED_MESSAGE = '$property must give its time zone: end it with Z or an offset such as +01:00';

/** Query of `GET /jobs`. */
export class ListJobsQueryDto extends JobFilterDto {
  @ApiPropertyOptional({ enum: JOB_STATUSES, enumName: 'JobStatus' })
  @IsOptional()
  @IsEnum(JobStatus)
  status?: JobStatus;

  @ApiPropertyOptional({
    description:
      'A JSON object the payload must contain (PostgreSQL `@>`): `{"customerId":42}` finds every job whose payload has that ' +
      'field with that value, at any nesting given. URL-encode it.',
    example: '{"customerId":42}',
    maxLength: MAX_PAYLOAD_FILTER_LENGTH,
  })
  @IsOptional()
  @IsString()
  @Length(1, MAX_PAYLOAD_FILTER_LENGTH)
  @IsJsonObjectText()
  payload?: string;

  @ApiPropertyOptional({
    description: 'Only jobs created at or after this time (ISO 8601 with a time zone or Z).',
    format: 'date-time',
    example: '2026-11-25T08:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: '$property must be an ISO 8601 date-time, e.g. 2026-11-25T08:00:00Z' })
  @Matches(ZONED, { message: ZONED_MESSAGE })
  createdFrom?: string;

  @ApiPropertyOptional({
    description: 'Only jobs created at or before this time (ISO 8601 with a time zone or Z).',
    format: 'date-time',
    example: '2026-11-25T18:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: '$property must be an ISO 8601 date-time, e.g. 2026-11-25T18:00:00Z' })
  @Matches(ZONED, { message: ZONED_MESSAGE })
  createdTo?: string;

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
