import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDefined,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
} from 'class-validator';

/**
 * The envelope of a submission, checked with class-validator. The payload is checked separately,
 * against the handler's own payload class.
 */
export class SubmitJobDto {
  @ApiProperty({ description: 'A registered handler type (or a declared external type).', example: 'SEND_EMAIL', maxLength: 200 })
  @IsString()
  @Length(1, 200)
  type: string;

  @ApiProperty({ description: "Any JSON, checked against the handler's payload class.", example: { to: 'ada@example.com', subject: 'Welcome' } })
  @IsDefined()
  payload: unknown;

  @ApiPropertyOptional({ description: "Defaults to the handler's queue, else `default`.", pattern: '^[A-Za-z0-9_.:-]+$', maxLength: 200 })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @Matches(/^[A-Za-z0-9_.:-]+$/, { message: 'queue may contain only letters, digits, _ . : -' })
  queue?: string;

  @ApiPropertyOptional({ description: 'Lower runs first.', default: 0, minimum: -1_000_000, maximum: 1_000_000 })
  @IsOptional()
  @IsInt()
  @Min(-1_000_000)
  @Max(1_000_000)
  priority?: number;

  @ApiPropertyOptional({ format: 'date-time', description: 'Run no earlier than this.' })
  @IsOptional()
  @IsISO8601({ strict: true })
  runAt?: string;

  @ApiPropertyOptional({ description: 'Run no earlier than this many milliseconds from now.', minimum: 0, maximum: 366 * 86_400_000 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(366 * 86_400_000)
  delayMs?: number;

  @ApiPropertyOptional({ description: 'Attempts before DEAD; defaults to the handler\'s, else MAX_ATTEMPTS.', minimum: 1, maximum: 1000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  maxAttempts?: number;

  @ApiPropertyOptional({ description: 'The same key with the same request answers the earlier job (200).', maxLength: 255 })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  idempotencyKey?: string;

  @ApiPropertyOptional({
    description:
      'At most one waiting or running job per (type, uniqueKey): while one exists, a submission with the key answers it (200); once it finished, the key is free.',
    maxLength: 255,
  })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  uniqueKey?: string;
}
