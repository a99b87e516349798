import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { JobValidationError } from '../../errors/job-request.errors';
import { ExternalWorkers } from '../../consumer/external-workers/external-workers.service';
import { ExternalLease, ExternalOutcome } from '../../consumer/external-workers/external-outcome.interface';
import { Job } from '../../job/job';
import { readCompleteJobBody } from '../pipes/complete-job-body.reader';
import { readReportProgressBody } from '../pipes/report-progress-body.reader';
import { isRunAtText } from '../../submission/run-at-text';
import {
  ClaimedJobDto,
  ClaimedJobsDto,
  ClaimJobsDto,
  CompleteJobDto,
  FailJobDto,
  HandBackJobDto,
  HeartbeatJobDto,
  JobLeaseDto,
  JobOutcomeDto,
  JobProgressDto,
  ReportProgressDto,
} from '../dto';
import { JobProgress } from '../../job/job-progress';
import { JobIdPipe } from '../pipes/job-id.pipe';
import { ApiAccess, ApiErrors } from '../openapi';
import { QueueNamePipe } from '../pipes/queue-name.pipe';
import { conveyorValidationPipe } from '../pipes/validation.pipe';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';

const CONFLICT =
  'The job is not RUNNING under this lease token (the lease expired and the job was rescued, or its outcome was already reported); nothing changed. ' +
  "`jobStatus` is the job's status: `CANCELLED` means an operator cancelled it, so stop working on it.";
const JOB_ID = ApiParam({ name: 'id', format: 'uuid', description: 'The claimed job.' });

/**
 * Workers in other processes and languages: claim jobs of a queue, keep their leases, report outcomes.
 * Every report carries the lease token of its claim; a token that no longer holds the job (the lease
 * expired and the job was rescued, or the outcome was already reported) is a 409 and changes nothing.
 * Needs a `worker` (or `admin`) key when API keys are configured. See ExternalWorkers for the protocol.
 */
@ApiTags('external workers')
@ConveyorRoutes()
@Controller()
export class ExternalWorkersController {
  constructor(private readonly workers: ExternalWorkers) {}

  @Post('queues/:queue/claim')
  @HttpCode(200)
  @ApiAccess('worker')
  @ApiOperation({
    summary: 'Claim ready jobs of a queue',
    description:
      'Claims up to `max` due jobs of the declared external types in this queue (none from a paused queue), by ' +
      'priority then run_at, each RUNNING under a fresh lease token until `lockedUntil`.',
  })
  @ApiParam({ name: 'queue', description: 'Queue name: 1-200 of letters, digits, _ . : -' })
  @ApiResponse({ status: 200, description: 'The claimed jobs (possibly none).', type: ClaimedJobsDto })
  @ApiErrors({ 400: 'An invalid queue name or field (`details` names it), or a type that is not declared external.', 413: true, 503: true })
  async claim(@Param('queue', QueueNamePipe) queue: string, @Body(conveyorValidationPipe()) body: ClaimJobsDto): Promise<ClaimedJobsDto> {
    const jobs = await this.workers.claim(queue, { workerId: body.workerId, max: body.max ?? 1, leaseMs: body.leaseMs, types: body.types });
    return { jobs: jobs.map(toClaimedJob) };
  }

  @Post('jobs/:id/heartbeat')
  @HttpCode(200)
  @ApiAccess('worker')
  @ApiOperation({ summary: 'Extend the lease of a claimed job', description: 'Pushes `lockedUntil` to now + `leaseMs`.' })
  @JOB_ID
  @ApiResponse({ status: 200, description: 'The lease was extended.', type: JobLeaseDto })
  @ApiErrors({ 400: true, 404: true, 409: CONFLICT, 413: true, 503: true })
  heartbeat(@Param('id', JobIdPipe) id: string, @Body(conveyorValidationPipe()) body: HeartbeatJobDto): Promise<ExternalLease> {
    return this.workers.heartbeat(id, body.leaseToken, body.leaseMs);
  }

  @Post('jobs/:id/progress')
  @HttpCode(200)
  @ApiAccess('worker')
  @ApiOperation({
    summary: 'Report the progress of a claimed job',
    description:
      "Stores `percent` (0–100) and/or `data` (a JSON object of at most 1 KiB) as the job's `progress` and sends it to " +
      'live subscribers. Refused with a 409 once the lease token no longer holds the job.',
  })
  @JOB_ID
  @ApiBody({ type: ReportProgressDto })
  @ApiResponse({ status: 200, description: 'The progress as stored.', type: JobProgressDto })
  @ApiErrors({
    400: 'A bad `percent` or `data`, or `data` over 1 KiB as JSON (`details` names the field).',
    404: true,
    409: CONFLICT,
    413: true,
    503: true,
  })
  progress(@Param('id', JobIdPipe) id: string, @Body() raw: unknown): Promise<JobProgress> {
    const body = readReportProgressBody(raw);
    return this.workers.progress(id, body.leaseToken, { percent: body.percent ?? null, data: body.data ?? null });
  }

  @Post('jobs/:id/complete')
  @HttpCode(200)
  @ApiAccess('worker')
  @ApiOperation({ summary: 'Complete a claimed job', description: 'Stores `result` and ends the job COMPLETED.' })
  @JOB_ID
  @ApiBody({ type: CompleteJobDto })
  @ApiResponse({ status: 200, description: 'The job is COMPLETED.', type: JobOutcomeDto })
  @ApiErrors({ 400: true, 404: true, 409: CONFLICT, 413: true, 503: true })
  complete(@Param('id', JobIdPipe) id: string, @Body() body: unknown): Promise<ExternalOutcome> {
    const { leaseToken, result } = readCompleteJobBody(body);
    return this.workers.complete(id, leaseToken, result);
  }

  @Post('jobs/:id/fail')
  @HttpCode(200)
  @ApiAccess('worker')
  @ApiOperation({
    summary: 'Fail an attempt of a claimed job',
    description:
      'Like a handler that throws: retried with backoff until maxAttempts, then DEAD. `retryAt` asks to run again at ' +
      "that time without using an attempt, and `retryInMs` that many milliseconds from now by the service's clock; " +
      '`permanent` ends the job DEAD at once. At most one of the three.',
  })
  @JOB_ID
  @ApiResponse({ status: 200, description: 'The job is RETRYING or DEAD.', type: JobOutcomeDto })
  @ApiErrors({ 400: true, 404: true, 409: CONFLICT, 413: true, 503: true })
  fail(@Param('id', JobIdPipe) id: string, @Body(conveyorValidationPipe()) body: FailJobDto): Promise<ExternalOutcome> {
    // Read as runAt is: Date alone rolls 2030-02-30 over to 2 March and 24:00 to the next day.
    if (body.retryAt != null && !isRunAtText(body.retryAt)) {
      throw new JobValidationError('Invalid request: retryAt', [
        { field: 'retryAt', problems: ['is not a real date-time between years 0001 and 9999 (UTC)'] },
      ]);
    }
    // null is as good as left out (a worker that writes every field sends it for the ones it does not mean).
    const given = (['retryAt', 'retryInMs', 'permanent'] as const).filter((field) => body[field] != null && body[field] !== false);
    if (given.length > 1) {
      throw new JobValidationError(`Invalid request: ${given[0]}`, [
        { field: given[0], problems: [`give one of retryAt, retryInMs and permanent, not ${given.join(' and ')}`] },
      ]);
    }
    // A delay is counted on this service's clock, so a worker whose clock is off still waits as long as it asked.
    const retryAt =
      body.retryInMs != null ? new Date(Date.now() + body.retryInMs) : body.retryAt != null ? new Date(body.retryAt) : undefined;
    return this.workers.fail(id, body.leaseToken, {
      error: body.error,
      errorName: body.errorName,
      stack: body.stack,
      retryAt,
      permanent: body.permanent,
    });
  }

  @Post('jobs/:id/hand-back')
  @HttpCode(200)
  @ApiAccess('worker')
  @ApiOperation({
    summary: 'Hand a claimed job back unrun',
    description:
      'For a worker that stops before the job finished: the job is PENDING again at once, for any worker, and this ' +
      'attempt does not count (the error history says `handed-back`), as when an instance shuts down.',
  })
  @JOB_ID
  @ApiResponse({ status: 200, description: 'The job is PENDING.', type: JobOutcomeDto })
  @ApiErrors({ 400: true, 404: true, 409: CONFLICT, 413: true, 503: true })
  handBack(@Param('id', JobIdPipe) id: string, @Body(conveyorValidationPipe()) body: HandBackJobDto): Promise<ExternalOutcome> {
    return this.workers.handBack(id, body.leaseToken);
  }
}

/** What a worker gets of a claimed job: enough to run it and hold its lease, not its history. */
function toClaimedJob(job: Job): ClaimedJobDto {
  return {
    id: job.id,
    queue: job.queue,
    type: job.type,
    payload: job.payload,
    priority: job.priority,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    runAt: job.runAt,
    createdAt: job.createdAt,
    leaseToken: job.leaseToken as string,
    lockedUntil: job.lockedUntil as Date,
  };
}
