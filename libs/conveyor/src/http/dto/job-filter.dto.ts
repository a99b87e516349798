import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { IsStorableText } from './storable-text.decorator';

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
  @IsStorableText()
  queue?: string;

  @ApiPropertyOptional({ description: 'Job type, whatever the case.', example: 'SEND_EMAIL' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @IsStorableText()
  type?: string;

  @ApiPropertyOptional({ description: 'Text anywhere in the idempotency key.', minLength: 1, maxLength: 255 })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  @IsStorableText()
  key?: string;
}
