import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

/** Body of `POST /jobs/:id/hand-back`. */
export class HandBackJobDto {
  @ApiProperty({ description: 'The lease token the claim returned.', format: 'uuid' })
  @IsUUID()
  leaseToken: string;
}
