import { ApiProperty } from '@nestjs/swagger';

/** One running instance of the service, as it last reported itself. */
export class InstanceDto {
  @ApiProperty({ example: 'web-1:4242:a1b2c3', description: 'Its worker id (`locked_by` of the jobs it runs).' })
  id: string;

  @ApiProperty({ example: 'web-1' })
  host: string;

  @ApiProperty({ example: 4242 })
  pid: number;

  @ApiProperty({ example: '0.1.0', description: "Conveyor's version." })
  version: string;

  @ApiProperty({ description: 'False for an API-only instance, which runs no handlers.' })
  runsWorkers: boolean;

  @ApiProperty({ example: 10, description: 'Handlers it runs at once (0 when it runs no workers).' })
  concurrency: number;

  @ApiProperty({ example: 3, description: 'Handlers running at its last heartbeat.' })
  running: number;

  @ApiProperty({ type: [String], example: ['default', 'emails'], description: "Queues of the handlers it runs (each type's queue)." })
  queues: string[];

  @ApiProperty({ type: [String], example: ['SEND_EMAIL'], description: 'Job types it runs.' })
  types: string[];

  @ApiProperty({ description: 'Whether it holds the maintenance leadership now.' })
  leader: boolean;

  @ApiProperty({ format: 'date-time' })
  startedAt: string;

  @ApiProperty({ format: 'date-time', description: 'Its last heartbeat.' })
  lastSeen: string;

  @ApiProperty({ format: 'date-time', description: 'When it leaves the list unless it heartbeats again.' })
  expiresAt: string;
}

/** Answer of `GET /instances`. */
export class InstanceListDto {
  @ApiProperty({ type: [InstanceDto], description: 'The live instances, oldest first.' })
  instances: InstanceDto[];
}
