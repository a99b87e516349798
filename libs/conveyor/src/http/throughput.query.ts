import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Query of `GET /queues/throughput`. */
export class ThroughputQuery {
  @ApiPropertyOptional({ description: 'Length of the window in minutes, the current one included.', minimum: 1, maximum: 1440, default: 15 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1440)
  minutes?: number;
}
