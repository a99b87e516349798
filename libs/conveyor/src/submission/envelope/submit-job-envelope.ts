import { IsDefined, IsInt, IsISO8601, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { NAME_CHARACTERS, NAME_MAX_LENGTH } from '../../config/name-rule';

/** The longest delay a job may be given, a year: a submission's `delayMs`, an HTTP worker's `retryInMs`. */
export const MAX_DELAY_MS = 366 * 86_400_000;

/**
 * The rules of a submission's envelope, for class-validator: the engine's own, because JobRequestValidator
 * applies them to in-code `enqueue` calls as much as to `POST /jobs`. The payload is checked separately,
 * against the handler's own payload class. The HTTP DTO (SubmitJobDto in http/dto, which documents the body
 * for OpenAPI) implements this class, so that the engine does not need @nestjs/swagger.
 */
export class SubmitJobEnvelope {
  @IsString()
  @Length(1, 200)
  type: string;

  @IsDefined()
  payload: unknown;

  @IsOptional()
  @IsString()
  @Length(1, NAME_MAX_LENGTH)
  @Matches(NAME_CHARACTERS, { message: 'queue may contain only letters, digits, _ . : -' })
  queue?: string;

  @IsOptional()
  @IsInt()
  @Min(-1_000_000)
  @Max(1_000_000)
  priority?: number;

  @IsOptional()
  @IsISO8601({ strict: true })
  runAt?: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_DELAY_MS)
  delayMs?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  maxAttempts?: number;

  @IsOptional()
  @IsString()
  @Length(1, 255)
  idempotencyKey?: string;

  @IsOptional()
  @IsString()
  @Length(1, 255)
  uniqueKey?: string;
}
