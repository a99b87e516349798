import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { QueueSummary, QueuesService } from '../jobs/queues.service';
import { RequiresRole } from './requires-role.decorator';

/** Queue views and controls. */
@Controller('queues')
export class QueuesController {
  constructor(private readonly queues: QueuesService) {}

  /** Per queue: counts by status, ready jobs and the age of the oldest one, paused or not. */
  @Get()
  @RequiresRole('producer')
  async list(): Promise<{ queues: QueueSummary[] }> {
    return { queues: await this.queues.summaries() };
  }

  /** A paused queue keeps accepting jobs but no instance claims from it. */
  @Post(':queue/pause')
  @RequiresRole('admin')
  @HttpCode(200)
  pause(@Param('queue') queue: string): Promise<{ name: string; paused: boolean }> {
    return this.queues.setPaused(queue, true);
  }

  @Post(':queue/resume')
  @RequiresRole('admin')
  @HttpCode(200)
  resume(@Param('queue') queue: string): Promise<{ name: string; paused: boolean }> {
    return this.queues.setPaused(queue, false);
  }
}
