import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { QueueSummary, QueuesService } from '../../submission/queues.service';
import { ThroughputReport } from '../../submission/queue-throughput.interface';
import { QueueListDto, QueuePausedDto, ThroughputQueryDto, ThroughputReportDto } from '../dto';
import { ApiAccess, ApiErrors } from '../openapi';
import { conveyorValidationPipe } from '../pipes/validation.pipe';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';

const DEFAULT_THROUGHPUT_MINUTES = 15;

const QUEUE = ApiParam({ name: 'queue', description: 'Queue name: 1-200 of letters, digits, _ . : -', example: 'emails' });

/** Queue views and controls. */
@ApiTags('queues')
@ConveyorRoutes()
@Controller('queues')
export class QueuesController {
  constructor(private readonly queues: QueuesService) {}

  /** Per queue: counts by status, ready jobs and the age of the oldest one, paused or not. */
  @Get()
  @ApiAccess('producer')
  @ApiOperation({
    summary: 'List queues',
    description:
      'Per queue: jobs by status, ready jobs and the age of the oldest one, paused or not. Exact counts, read once for ' +
      'the requests an instance gets at a time and reused for a few seconds; a pause or resume shows at once on the ' +
      'instance that made it.',
  })
  @ApiOkResponse({ type: QueueListDto })
  @ApiErrors({ 503: true })
  async list(): Promise<{ queues: QueueSummary[] }> {
    return { queues: await this.queues.summaries() };
  }

  /** Finished jobs per queue and minute, read from the partial indexes on finished jobs. */
  @Get('throughput')
  @ApiAccess('producer')
  @ApiOperation({
    summary: 'Jobs finished per queue and minute',
    description:
      'COMPLETED and DEAD jobs per minute over the last `minutes` minutes, every minute present. Read once for the ' +
      'requests an instance gets at a time and reused for a few seconds.',
  })
  @ApiOkResponse({ type: ThroughputReportDto })
  @ApiErrors({ 400: 'A bad `minutes`.', 503: true })
  throughput(@Query(conveyorValidationPipe()) query: ThroughputQueryDto): Promise<ThroughputReport> {
    return this.queues.throughput(query.minutes ?? DEFAULT_THROUGHPUT_MINUTES);
  }

  /** A paused queue keeps accepting jobs but no instance claims from it. */
  @Post(':queue/pause')
  @ApiAccess('admin')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Pause a queue',
    description: 'It keeps accepting jobs, but no instance claims from it. Pausing twice is no error.',
  })
  @QUEUE
  @ApiOkResponse({ type: QueuePausedDto })
  @ApiErrors({ 400: 'A malformed queue name.', 503: true })
  pause(@Param('queue') queue: string): Promise<{ name: string; paused: boolean }> {
    return this.queues.setPaused(queue, true);
  }

  @Post(':queue/resume')
  @ApiAccess('admin')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resume a queue', description: 'Workers are woken at once.' })
  @QUEUE
  @ApiOkResponse({ type: QueuePausedDto })
  @ApiErrors({ 400: 'A malformed queue name.', 503: true })
  resume(@Param('queue') queue: string): Promise<{ name: string; paused: boolean }> {
    return this.queues.setPaused(queue, false);
  }
}
