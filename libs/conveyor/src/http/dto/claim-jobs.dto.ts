import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { IsStorableText } from './storable-text.decorator';

/** Body of `POST /queues/:queue/claim`. */
export class ClaimJobsDto {
  @ApiProperty({
    description: 'Names the worker in locked_by and in the error history.',
    example: 'thumbnailer-1',
    minLength: 1,
    maxLength: 200,
  })
  @IsString()
  @Length(1, 200)
  @IsStorableText()
  workerId: string;

  @ApiPropertyOptional({ description: 'Most jobs to claim (capped at CLAIM_BATCH_SIZE).', default: 1, minimum: 1, maximum: 1000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  max?: number;

  @ApiPropertyOptional({ description: 'Lease of each claimed job, in ms (LEASE_MS when omitted).', minimum: 1000, maximum: 86_400_000 })
  @IsOptional()
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  leaseMs?: number;

  @ApiPropertyOptional({ description: 'Only these external types (every declared external type when omitted).', type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Length(1, 200, { each: true })
  types?: string[];
}
