import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';

/** Body of `POST /jobs/:id/heartbeat`. */
export class HeartbeatJobDto {
  @ApiProperty({ description: 'The lease token the claim returned.', format: 'uuid' })
  @IsUUID()
  leaseToken: string;

  @ApiPropertyOptional({ description: 'New lease from now, in ms (LEASE_MS when omitted).', minimum: 1000, maximum: 86_400_000 })
  @IsOptional()
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  leaseMs?: number;
}
