import { ApiProperty } from '@nestjs/swagger';

/** Answer of `POST /jobs/retry`. */
export class BulkRetryResultDto {
  @ApiProperty({ description: 'Jobs put back to PENDING. When it equals the limit, more may match: call again.', example: 3 })
  retried: number;

  @ApiProperty({ type: [String], format: 'uuid', description: 'Their ids.' })
  ids: string[];
}
