import { ApiProperty } from '@nestjs/swagger';

/** One cron schedule: its definition and its state. */
export class ScheduleDto {
  @ApiProperty({ example: 'nightly-report' })
  name: string;

  @ApiProperty({ example: '0 3 * * *', description: '5 fields (minute precision) or 6 with a leading seconds field, or an alias.' })
  cron: string;

  @ApiProperty({ example: 'UTC', description: 'IANA time zone the expression is read in.' })
  timezone: string;

  @ApiProperty({ example: 'REPORT', description: 'Job type each tick enqueues.' })
  type: string;

  @ApiProperty({ example: 'default', description: 'Queue those jobs go to.' })
  queue: string;

  @ApiProperty({ example: 1, description: 'After a downtime, how many missed ticks are enqueued (the newest).' })
  catchUp: number;

  @ApiProperty({ description: 'A paused schedule enqueues no ticks; on resume it starts from the next tick, without back-fill.' })
  paused: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When it was paused; null when it runs.' })
  pausedAt: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'The newest tick a job was enqueued for; null before the first.',
  })
  lastTick: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'The next tick to be enqueued; null while paused.',
  })
  nextTick: string | null;
}

/** Answer of `GET /schedules`. */
export class ScheduleListDto {
  @ApiProperty({ type: [ScheduleDto], description: 'Every schedule of the instance that answers, by name.' })
  schedules: ScheduleDto[];
}
