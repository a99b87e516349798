import { ApiProperty } from '@nestjs/swagger';

/** The terminus health report (`status` plus one entry per check). */
export class HealthReportDto {
  @ApiProperty({ enum: ['ok', 'error', 'shutting_down'] })
  status: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Checks that are up, with their data.' })
  info: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Checks that are down, with their data.' })
  error: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Every check, up or down.' })
  details: Record<string, unknown>;
}
