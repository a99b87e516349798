import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { JobValidationError } from '../errors/job-request.errors';
import { Job } from '../jobs/job.entity';
import { JobPage, JobsService } from '../jobs/jobs.service';
import { JobIdPipe } from './job-id.pipe';
import { ListJobsQuery } from './list-jobs.query';
import { RequiresRole } from './requires-role.decorator';
import { conveyorValidationPipe } from './validation.pipe';

const DEFAULT_PAGE = 50;

/** Submitting, reading and steering jobs over REST. Producers submit and read; steering needs admin. */
@Controller('jobs')
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  /**
   * 201 with the new job; 200 with the earlier job when the idempotency key (body field or
   * `Idempotency-Key` header) was already used with the same request; 409 when used with another.
   */
  @Post()
  @RequiresRole('producer')
  async submit(
    @Body() body: unknown,
    @Headers('idempotency-key') headerKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Job> {
    const input = withHeaderKey(body, headerKey);
    const { job, created } = await this.jobs.submit(input);
    res.status(created ? 201 : 200);
    return job;
  }

  /** All or nothing: 201 with every job, in request order. */
  @Post('batch')
  @RequiresRole('producer')
  async submitBatch(@Body() body: unknown): Promise<{ jobs: Job[] }> {
    if (body === null || typeof body !== 'object' || Array.isArray(body) || !('jobs' in body)) {
      throw new JobValidationError('Invalid batch', [{ field: 'jobs', problems: ['is required: { "jobs": [ ... ] }'] }]);
    }
    const extra = Object.keys(body).filter((k) => k !== 'jobs');
    if (extra.length > 0) {
      throw new JobValidationError('Invalid batch', extra.map((field) => ({ field, problems: ['is not a known field'] })));
    }
    return { jobs: await this.jobs.submitBatch((body as { jobs: unknown }).jobs) };
  }

  @Get()
  @RequiresRole('producer')
  list(@Query(conveyorValidationPipe()) query: ListJobsQuery): Promise<JobPage> {
    return this.jobs.list({ ...query, limit: query.limit ?? DEFAULT_PAGE });
  }

  @Get(':id')
  @RequiresRole('producer')
  get(@Param('id', JobIdPipe) id: string): Promise<Job> {
    return this.jobs.get(id);
  }

  @Post(':id/cancel')
  @RequiresRole('admin')
  @HttpCode(200)
  cancel(@Param('id', JobIdPipe) id: string): Promise<Job> {
    return this.jobs.cancel(id);
  }

  @Post(':id/retry')
  @RequiresRole('admin')
  @HttpCode(200)
  retry(@Param('id', JobIdPipe) id: string): Promise<Job> {
    return this.jobs.retry(id);
  }

  /** Purges a finished job (COMPLETED, DEAD or CANCELLED): 204; 409 while it is waiting or running. */
  @Delete(':id')
  @HttpCode(204)
  @RequiresRole('admin')
  async purge(@Param('id', JobIdPipe) id: string): Promise<void> {
    await this.jobs.purge(id);
  }
}

/** Merges the `Idempotency-Key` header into the body; a different key in each is a 400. */
function withHeaderKey(body: unknown, headerKey: string | undefined): unknown {
  if (headerKey === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const own = (body as { idempotencyKey?: unknown }).idempotencyKey;
  if (own !== undefined && own !== headerKey) {
    throw new JobValidationError('Conflicting idempotency keys', [
      { field: 'idempotencyKey', problems: ['differs from the Idempotency-Key header'] },
    ]);
  }
  return { ...(body as object), idempotencyKey: headerKey };
}
