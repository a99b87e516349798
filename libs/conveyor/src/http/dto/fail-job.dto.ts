import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, IsUUID, Length, Matches, Max, Min } from 'class-validator';
import { MAX_DELAY_MS } from '../../submission/envelope/submit-job-envelope';

/** A date-time with its offset: what every server reads the same way. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Body of `POST /jobs/:id/fail`. */
export class FailJobDto {
  @ApiProperty({ description: 'The lease token the claim returned.', format: 'uuid' })
  @IsUUID()
  leaseToken: string;

  @ApiProperty({
    description: 'What went wrong (the error message); longer messages are cut at 4,000 characters.',
    example: 'upstream answered 502',
  })
  @IsString()
  @Length(1, 100_000)
  error: string;

  @ApiPropertyOptional({ description: "The error's class name in the worker ('Error' when omitted).", example: 'TimeoutError' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  errorName?: string;

  @ApiPropertyOptional({ description: "The worker's stack trace, kept in the job's error history." })
  @IsOptional()
  @IsString()
  @Length(1, 100_000)
  stack?: string;

  @ApiPropertyOptional({
    description: 'Try again at this time; the attempt does not count (like RetryLaterError, capped by MAX_SNOOZES).',
    format: 'date-time',
  })
  @IsOptional()
  @IsString()
  @Matches(DATE_TIME, { message: '$property must be a date-time with offset, such as 2030-01-01T12:00:00Z' })
  retryAt?: string;

  @ApiPropertyOptional({
    description: "Try again this many milliseconds from now, by the service's clock: as `retryAt`, whatever the worker's clock says.",
    minimum: 0,
    maximum: MAX_DELAY_MS,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_DELAY_MS)
  retryInMs?: number;

  @ApiPropertyOptional({ description: 'This will never work: the job is DEAD at once (like PermanentJobError).' })
  @IsOptional()
  @IsBoolean()
  permanent?: boolean;
}
