import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Max, Min } from 'class-validator';
import { QueryInt } from './query-int.decorator';

/** Query of `GET /queues/throughput`. */
export class ThroughputQueryDto {
  @ApiPropertyOptional({
    description: 'Length of the window in minutes, the current one included.',
    minimum: 1,
    maximum: 1440,
    default: 15,
  })
  @IsOptional()
  @QueryInt()
  @Min(1)
  @Max(1440)
  minutes?: number;
}
