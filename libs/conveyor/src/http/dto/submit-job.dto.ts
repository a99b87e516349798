import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { NAME_CHARACTERS, NAME_MAX_LENGTH } from '../../config/name-rule';
import { MAX_DELAY_MS, SubmitJobEnvelope } from '../../submission/envelope/submit-job-envelope';
import { anyJsonSchema } from './any-json.schema';

/**
 * Body of `POST /jobs` (and each item of `POST /jobs/batch`), for the OpenAPI document. The rules live in the
 * engine's SubmitJobEnvelope, which JobRequestValidator applies to REST and in-code submissions alike;
 * `Required<>` makes the compiler name a field added there and missing here (test/types checks the converse).
 */
export class SubmitJobDto implements Required<SubmitJobEnvelope> {
  @ApiProperty({ description: 'A registered handler type (or a declared external type).', example: 'SEND_EMAIL', maxLength: 200 })
  type: string;

  @ApiProperty({
    ...anyJsonSchema(),
    description: "Any JSON, checked against the handler's payload class.",
    example: { to: 'ada@example.com', subject: 'Welcome' },
  })
  payload: unknown;

  @ApiPropertyOptional({
    description: "Defaults to the handler's queue, else `default`.",
    pattern: NAME_CHARACTERS.source,
    maxLength: NAME_MAX_LENGTH,
  })
  queue: string;

  @ApiPropertyOptional({ description: 'Lower runs first.', default: 0, minimum: -1_000_000, maximum: 1_000_000 })
  priority: number;

  @ApiPropertyOptional({ format: 'date-time', description: 'Run no earlier than this.' })
  runAt: string;

  @ApiPropertyOptional({ description: 'Run no earlier than this many milliseconds from now.', minimum: 0, maximum: MAX_DELAY_MS })
  delayMs: number;

  @ApiPropertyOptional({ description: "Attempts before DEAD; defaults to the handler's, else MAX_ATTEMPTS.", minimum: 1, maximum: 1000 })
  maxAttempts: number;

  @ApiPropertyOptional({ description: 'The same key with the same request answers the earlier job (200).', maxLength: 255 })
  idempotencyKey: string;

  @ApiPropertyOptional({
    description:
      'At most one waiting or running job per (type, uniqueKey): while one exists, a submission with the key answers it (200); once it finished, the key is free.',
    maxLength: 255,
  })
  uniqueKey: string;
}
