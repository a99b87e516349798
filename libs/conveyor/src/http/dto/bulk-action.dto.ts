import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsUUID } from 'class-validator';
import { BULK_ACTIONS } from '../../submission/bulk-actions.service';
import { JobStatus } from '../../job/job-status';
import { nullableRef } from './nullable-ref.schema';

/** Most ids one bulk action takes; a bigger selection is sent in several requests. */
export const MAX_BULK_IDS = 500;

/** Body of `POST /jobs/bulk/{cancel,retry,delete}`. */
export class BulkActionDto {
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: MAX_BULK_IDS, description: 'The jobs to act on.' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_IDS)
  @IsUUID('all', { each: true, message: 'each of $property must be a job id (a UUID)' })
  ids: string[];
}

/** What the action did to one job. */
export class BulkItemResultDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Whether the action was applied to this job.' }) ok: boolean;
  @ApiProperty({
    // The enum schema JobDto's status names (enumName).
    ...nullableRef('JobStatus'),
    description: "The job's status now (null once deleted, or when there is no such job).",
  })
  status: JobStatus | null;
  @ApiPropertyOptional({
    enum: [404, 409],
    description: 'When not ok: 404 no such job, 409 its state (or a unique key) does not allow it.',
  })
  statusCode?: number;
  @ApiPropertyOptional({ description: 'When not ok: why, as the single-job route would say.' }) message?: string;
}

/** Answer of a bulk action: one result per distinct id, in request order. */
export class BulkActionResultDto {
  @ApiProperty({ enum: BULK_ACTIONS }) action: string;
  @ApiProperty({ description: 'Jobs the action was applied to.' }) succeeded: number;
  @ApiProperty({ description: 'Jobs it was refused for (see their results).' }) failed: number;
  @ApiProperty({ type: [BulkItemResultDto] }) results: BulkItemResultDto[];
}
