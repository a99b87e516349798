import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { JobValidationError } from '../../errors/job-request.errors';
import { BulkRetryResult, BulkRetryService } from '../../submission/bulk-retry.service';
import { JobStatus } from '../../job/job-status';
import { JobsService } from '../../submission/jobs.service';
import { JobIdPipe } from '../pipes/job-id.pipe';
import { JobView, toJobView } from './job-view';
import { toJobListFilter } from './job-list-filter';
import { BulkRetryResultDto, JobBatchDto, JobDto, JobPageDto, ListJobsQueryDto, MAX_BULK_RETRY, RetryJobsDto, SubmitJobDto } from '../dto';
import { ApiAccess, ApiErrors } from '../openapi';
import { conveyorValidationPipe } from '../pipes/validation.pipe';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';

const JOB_ID = ApiParam({ name: 'id', format: 'uuid', description: 'The job id.' });

/**
 * Submitting, reading and steering jobs over REST. Producers submit and read; steering needs admin. Every
 * job in an answer goes through toJobView, which leaves out the lease token of a RUNNING job.
 */
@ApiTags('jobs')
@ApiExtraModels(SubmitJobDto)
@ConveyorRoutes()
@Controller('jobs')
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly bulkRetry: BulkRetryService,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /**
   * 201 with the new job; 200 with the earlier job when the idempotency key (body field or
   * `Idempotency-Key` header) was already used with the same request; 409 when used with another.
   */
  @Post()
  @ApiAccess('producer')
  @ApiOperation({
    summary: 'Submit a job',
    description: 'The payload is validated against the handler of its type before anything is stored.',
  })
  @ApiBody({ type: SubmitJobDto })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'Same as the `idempotencyKey` field (they must agree if both are sent); printable ASCII only.',
  })
  @ApiCreatedResponse({ type: JobDto, description: 'The job was created.' })
  @ApiOkResponse({ type: JobDto, description: 'The idempotency key was already used with the same request: the earlier job.' })
  @ApiErrors({
    400: 'Unknown type, or an invalid field or payload: `details` names each.',
    409: 'The idempotency key was used for a different request.',
    413: true,
    503: true,
  })
  async submit(
    @Body() body: unknown,
    @Headers('idempotency-key') headerKey: string | undefined,
    @Res({ passthrough: true }) res: unknown,
  ): Promise<JobView> {
    const input = withHeaderKey(body, headerKey);
    const { job, created } = await this.jobs.submit(input);
    this.adapterHost.httpAdapter.status(res, created ? 201 : 200);
    return toJobView(job);
  }

  /** All or nothing: 201 with every job, in request order. */
  @Post('batch')
  @ApiAccess('producer')
  @ApiOperation({ summary: 'Submit many jobs at once', description: 'All or nothing, with one multi-row statement.' })
  @ApiBody({
    schema: { type: 'object', required: ['jobs'], properties: { jobs: { type: 'array', items: { $ref: getSchemaPath(SubmitJobDto) } } } },
  })
  @ApiCreatedResponse({ type: JobBatchDto, description: 'Every job, in request order (earlier jobs for repeated idempotency keys).' })
  @ApiErrors({
    400: 'Invalid batch: `details` names `jobs[i].field`; an `Idempotency-Key` header (each job takes its own key).',
    409: 'An idempotency key was used for a different request.',
    413: true,
    503: true,
  })
  async submitBatch(@Body() body: unknown, @Headers('idempotency-key') headerKey: string | undefined): Promise<{ jobs: JobView[] }> {
    if (headerKey !== undefined) {
      // Were it ignored, a retried batch would create every job again while its sender believes it idempotent.
      throw new JobValidationError('Invalid batch: Idempotency-Key', [
        { field: 'Idempotency-Key', problems: ['is not taken by POST /jobs/batch: give each job its own idempotencyKey'] },
      ]);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body) || !('jobs' in body)) {
      throw new JobValidationError('Invalid batch', [{ field: 'jobs', problems: ['is required: { "jobs": [ ... ] }'] }]);
    }
    const extra = Object.keys(body).filter((k) => k !== 'jobs');
    if (extra.length > 0) {
      throw new JobValidationError(
        'Invalid batch',
        extra.map((field) => ({ field, problems: ['is not a known field'] })),
      );
    }
    const jobs = await this.jobs.submitBatch((body as { jobs: unknown }).jobs);
    return { jobs: jobs.map(toJobView) };
  }

  /** Bulk retry: one bounded statement; the caller repeats while `retried` equals the limit. */
  @Post('retry')
  @ApiAccess('admin')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Retry every DEAD (or CANCELLED) job matching a filter',
    description: `Puts up to \`limit\` (at most ${MAX_BULK_RETRY}) matching jobs, oldest first, back to PENDING with a fresh attempt budget, in one statement. \`{}\` retries DEAD jobs of every queue. Jobs whose unique key a waiting or running job holds are left as they are.`,
  })
  @ApiBody({ type: RetryJobsDto })
  @ApiOkResponse({ type: BulkRetryResultDto })
  @ApiErrors({
    400: true,
    409: 'A job with the unique key of one of them was submitted meanwhile; nothing changed, try again.',
    413: true,
    503: true,
  })
  retryMany(@Body(conveyorValidationPipe()) body: RetryJobsDto): Promise<BulkRetryResult> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new JobValidationError('Invalid retry filter', [{ field: 'body', problems: ['must be a JSON object, {} for every DEAD job'] }]);
    }
    return this.bulkRetry.retryMany({ ...body, status: body.status ?? JobStatus.DEAD, limit: body.limit ?? MAX_BULK_RETRY });
  }

  @Get()
  @ApiAccess('producer')
  @ApiOperation({
    summary: 'List and search jobs',
    description:
      'Newest first, keyset-paginated: pass `nextCursor` as `cursor` (with the same filters) for the next page. Filters combine: ' +
      'status, queue, type (whatever the case), text in the idempotency key, a JSON object the payload contains, and a ' +
      'creation time range.',
  })
  @ApiOkResponse({ type: JobPageDto })
  @ApiErrors({
    400: 'A bad filter or cursor: `details` names the field (`payload` not a JSON object, a date-time without zone…).',
    503: true,
  })
  async list(@Query(conveyorValidationPipe()) query: ListJobsQueryDto): Promise<{ items: JobView[]; nextCursor: string | null }> {
    const page = await this.jobs.list(toJobListFilter(query));
    return { items: page.items.map(toJobView), nextCursor: page.nextCursor };
  }

  @Get(':id')
  @ApiAccess('producer')
  @ApiOperation({ summary: 'Get one job', description: 'Status, attempts, result and the error history.' })
  @JOB_ID
  @ApiOkResponse({ type: JobDto })
  @ApiErrors({ 400: 'The id is not a UUID.', 404: true, 503: true })
  async get(@Param('id', JobIdPipe) id: string): Promise<JobView> {
    return toJobView(await this.jobs.get(id));
  }

  @Post(':id/cancel')
  @ApiAccess('admin')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a waiting or running job',
    description:
      "SCHEDULED, PENDING, RETRYING or RUNNING → CANCELLED. A RUNNING job's handler is aborted (its AbortSignal fires on " +
      'whichever instance runs it; an HTTP worker learns it from its next heartbeat) and its outcome is not stored.',
  })
  @JOB_ID
  @ApiOkResponse({ type: JobDto, description: 'The cancelled job.' })
  @ApiErrors({ 400: 'The id is not a UUID.', 404: true, 409: 'The job is finished (`jobStatus` says how).', 503: true })
  async cancel(@Param('id', JobIdPipe) id: string): Promise<JobView> {
    return toJobView(await this.jobs.cancel(id));
  }

  @Post(':id/run-now')
  @ApiAccess('admin')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run a waiting job now',
    description: 'A SCHEDULED, RETRYING or PENDING job becomes due now (status and attempts unchanged); workers are woken.',
  })
  @JOB_ID
  @ApiOkResponse({ type: JobDto, description: 'The job, due now.' })
  @ApiErrors({ 400: 'The id is not a UUID.', 404: true, 409: 'The job is RUNNING or finished (`jobStatus` says how).', 503: true })
  async runNow(@Param('id', JobIdPipe) id: string): Promise<JobView> {
    return toJobView(await this.jobs.runNow(id));
  }

  @Post(':id/retry')
  @ApiAccess('admin')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Retry a DEAD or CANCELLED job',
    description: 'Back to PENDING with a fresh attempt budget; the error history is kept.',
  })
  @JOB_ID
  @ApiOkResponse({ type: JobDto, description: 'The job, PENDING again.' })
  @ApiErrors({
    400: 'The id is not a UUID.',
    404: true,
    409: 'The job is neither DEAD nor CANCELLED, or a newer waiting or running job holds its unique key.',
    503: true,
  })
  async retry(@Param('id', JobIdPipe) id: string): Promise<JobView> {
    return toJobView(await this.jobs.retry(id));
  }

  /** Purges a finished job (COMPLETED, DEAD or CANCELLED): 204; 409 while it is waiting or running. */
  @Delete(':id')
  @HttpCode(204)
  @ApiAccess('admin')
  @ApiOperation({ summary: 'Delete a finished job', description: 'COMPLETED, DEAD or CANCELLED jobs only.' })
  @JOB_ID
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors({ 400: 'The id is not a UUID.', 404: true, 409: 'The job is waiting or running.', 503: true })
  async purge(@Param('id', JobIdPipe) id: string): Promise<void> {
    await this.jobs.purge(id);
  }
}

/**
 * What an `Idempotency-Key` header may hold: printable ASCII. Node reads a header's other bytes one character each
 * (Latin-1), so a key sent as UTF-8 would be stored as other characters than the same key in the body.
 */
const HEADER_KEY = /^[\x20-\x7e]*$/;

/** Merges the `Idempotency-Key` header into the body; a different key in each is a 400, and so is a header key not in ASCII. */
function withHeaderKey(body: unknown, headerKey: string | undefined): unknown {
  if (headerKey === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  if (!HEADER_KEY.test(headerKey)) {
    throw new JobValidationError('Invalid idempotency key', [
      {
        field: 'idempotencyKey',
        problems: ['the Idempotency-Key header takes printable ASCII only: send other keys as the idempotencyKey field'],
      },
    ]);
  }
  const own = (body as { idempotencyKey?: unknown }).idempotencyKey;
  if (own !== undefined && own !== headerKey) {
    throw new JobValidationError('Conflicting idempotency keys', [
      { field: 'idempotencyKey', problems: ['differs from the Idempotency-Key header'] },
    ]);
  }
  return { ...(body as object), idempotencyKey: headerKey };
}
