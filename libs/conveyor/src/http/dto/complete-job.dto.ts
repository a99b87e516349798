import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsUUID } from 'class-validator';
import { anyJsonSchema } from './any-json.schema';

/** Body of `POST /jobs/:id/complete`. */
export class CompleteJobDto {
  @ApiProperty({ description: 'The lease token the claim returned.', format: 'uuid' })
  @IsUUID()
  leaseToken: string;

  @ApiPropertyOptional({
    ...anyJsonSchema({ nullable: true }),
    description: "Any JSON value, stored as the job's result (null when omitted).",
  })
  @Allow()
  result?: unknown;
}
