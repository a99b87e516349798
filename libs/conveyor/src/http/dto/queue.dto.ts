import { ApiProperty } from '@nestjs/swagger';

/** Jobs of one queue per status. */
export class StatusCountsDto {
  @ApiProperty() SCHEDULED: number;
  @ApiProperty() PENDING: number;
  @ApiProperty() RUNNING: number;
  @ApiProperty() RETRYING: number;
  @ApiProperty() COMPLETED: number;
  @ApiProperty() DEAD: number;
  @ApiProperty() CANCELLED: number;
}

/** One queue's state. */
export class QueueSummaryDto {
  @ApiProperty({ example: 'emails' })
  name: string;

  @ApiProperty({ description: 'A paused queue accepts jobs, but no instance claims from it.' })
  paused: boolean;

  @ApiProperty({ type: StatusCountsDto })
  counts: StatusCountsDto;

  @ApiProperty({ description: 'Jobs due now and waiting for a worker.' })
  ready: number;

  @ApiProperty({ type: Number, nullable: true, description: 'Seconds the oldest ready job has waited; null when none is ready.' })
  oldestReadyAgeSeconds: number | null;
}

/** Answer of `GET /queues`. */
export class QueueListDto {
  @ApiProperty({ type: [QueueSummaryDto] })
  queues: QueueSummaryDto[];
}

/** Answer of pausing or resuming a queue. */
export class QueuePausedDto {
  @ApiProperty({ example: 'emails' })
  name: string;

  @ApiProperty()
  paused: boolean;
}

/** Jobs one queue finished in one minute. */
export class ThroughputMinuteDto {
  @ApiProperty({ format: 'date-time', description: 'Start of the minute (UTC).' })
  minute: string;

  @ApiProperty({ description: 'Jobs that completed in that minute.' })
  completed: number;

  @ApiProperty({ description: 'Jobs that went DEAD in that minute.' })
  failed: number;
}

/** One queue's throughput series. */
export class QueueThroughputDto {
  @ApiProperty({ example: 'emails' })
  name: string;

  @ApiProperty({ type: [ThroughputMinuteDto], description: 'Every minute of the window, oldest first.' })
  perMinute: ThroughputMinuteDto[];
}

/** Answer of `GET /queues/throughput`. */
export class ThroughputReportDto {
  @ApiProperty({ description: 'Minutes in the window; the last one is the current, partial minute.', example: 15 })
  minutes: number;

  @ApiProperty({ format: 'date-time', description: 'Start of the first minute (UTC).' })
  since: string;

  @ApiProperty({ type: [QueueThroughputDto], description: 'Queues that finished at least one job in the window.' })
  queues: QueueThroughputDto[];
}
