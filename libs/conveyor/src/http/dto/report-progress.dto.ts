import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNumber, IsObject, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { MAX_PROGRESS_DATA_BYTES } from '../../job/job-progress';

/** Body of `POST /jobs/:id/progress`: `percent`, `data` or both. */
export class ReportProgressDto {
  @ApiProperty({ description: 'The lease token the claim returned.', format: 'uuid' })
  @IsUUID()
  leaseToken: string;

  @ApiPropertyOptional({ description: 'Percent done.', minimum: 0, maximum: 100, example: 40 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  percent?: number;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: `A small JSON object of your own, at most ${MAX_PROGRESS_DATA_BYTES} bytes as JSON.`,
    example: { step: 'uploading', done: 3, of: 7 },
  })
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;
}
