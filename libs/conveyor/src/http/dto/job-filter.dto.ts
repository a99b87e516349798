import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, NotContains } from 'class-validator';

/** PostgreSQL text cannot hold NUL; a filter with one would fail in the database instead of here. */
const NUL = '\u0000';
const NUL_MESSAGE = '$property must not contain NUL characters';

/**
 * The job filters `GET /jobs` and `POST /jobs/retry` share (queue exactly, type whatever the case, text in the
 * idempotency key), validated the same way in both. `GET /events` takes queue and type alone (LiveEventsQueryDto).
 */
// Not abstract: LiveEventsQueryDto derives from it with OmitType, which needs a class it can construct.
export class JobFilterDto {
  @ApiPropertyOptional({ description: 'Queue name, exactly.', example: 'emails' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @NotContains(NUL, { message: NUL_MESSAGE })
  queue?: string;

  @ApiPropertyOptional({ description: 'Job type, whatever the case.', example: 'SEND_EMAIL' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @NotContains(NUL, { message: NUL_MESSAGE })
  type?: string;

  @ApiPropertyOptional({ description: 'Text anywhere in the idempotency key.', minLength: 1, maxLength: 255 })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  @NotContains(NUL, { message: NUL_MESSAGE })
  key?: string;
}
