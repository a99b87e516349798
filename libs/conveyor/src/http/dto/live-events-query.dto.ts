import { ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { JOB_STATUSES } from '../../job/job-status';
import { DELETED } from '../../observation/live/live-event';
import { JobFilterDto } from './job-filter.dto';

/** What a live event's `status` may be: a job status, or DELETED for a purged job. */
export const LIVE_EVENT_STATUSES = [...JOB_STATUSES, DELETED];

/**
 * Query of `GET /events`: every given filter must match. A live event does not carry the idempotency key, so `key`
 * is no filter here: sent, it is a 400 like any unknown parameter, rather than a filter silently ignored.
 */
export class LiveEventsQueryDto extends OmitType(JobFilterDto, ['key'] as const) {
  @ApiPropertyOptional({ enum: LIVE_EVENT_STATUSES, description: 'Only events that leave a job in this status.' })
  @IsOptional()
  @IsIn(LIVE_EVENT_STATUSES)
  status?: string;
}
