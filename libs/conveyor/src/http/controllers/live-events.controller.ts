import type { ServerResponse } from 'node:http';
import { BadRequestException, Controller, Get, Headers, Inject, Param, Query, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { LiveFeed } from '../../observation/live-feed/live-feed.service';
import { LiveFilter } from '../../observation/live-feed/live-filter';
import { positionOf } from '../../observation/live/live-event';
import { JobsService } from '../../submission/jobs.service';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';
import { LiveEventsQueryDto } from '../dto';
import { errorBody } from '../errors/error-body';
import { ApiAccess, ApiErrors } from '../openapi';
import { CONVEYOR_HTTP_SETTINGS } from '../options/conveyor-http.constants';
import { ConveyorHttpSettings } from '../options/conveyor-http-options.interface';
import { JobIdPipe } from '../pipes/job-id.pipe';
import { conveyorValidationPipe } from '../pipes/validation.pipe';

/** The 200 of a stream: `text/event-stream` for it alone, so the error answers stay documented as JSON. */
const EVENT_STREAM_ANSWER = ApiOkResponse({
  description: 'An event stream.',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
});
const LAST_EVENT_ID = ApiHeader({
  name: 'Last-Event-ID',
  required: false,
  description: 'The id of the last event received: the stream first sends every matching job changed since then. Any other value is a 400.',
});
const STREAM_DESCRIPTION =
  'Server-sent events, each `event: job` with `data` = `{ id, status, queue, type, updatedAt, progress }` (a job state after ' +
  'a change, `status` DELETED for a purged job) and `id` = `<µs>.<job id>` for `Last-Event-ID`. `: ping` comments keep it ' +
  'open; a reader too far behind is dropped (reconnect with `Last-Event-ID`).';

/**
 * Live events over server-sent events: every instance's job changes (see LiveFeed for the protocol). Readable by
 * every role, like the job list. The response is written by hand on the platform's raw response, on Express and
 * Fastify alike (Fastify is told the reply is taken over), after the API-key guard has run.
 */
@ApiTags('jobs')
@ConveyorRoutes()
@Controller()
export class LiveEventsController {
  constructor(
    private readonly feed: LiveFeed,
    private readonly jobs: JobsService,
    @Inject(CONVEYOR_HTTP_SETTINGS) private readonly settings: ConveyorHttpSettings,
  ) {}

  @Get('events')
  @ApiAccess('producer')
  @ApiOperation({
    summary: 'Stream job changes',
    description: `Every job change, filtered by queue, type and status. ${STREAM_DESCRIPTION}`,
  })
  @LAST_EVENT_ID
  @EVENT_STREAM_ANSWER
  @ApiErrors({
    400: 'A bad filter, or a `Last-Event-ID` that is no event id of this API (`details` names it).',
    503: 'Live events are unavailable (behind a transaction pooler without LISTEN_URL).',
  })
  async events(
    @Query(conveyorValidationPipe()) query: LiveEventsQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() res: unknown,
  ): Promise<void> {
    this.mustBeAvailable();
    const position = resumePosition(lastEventId);
    await this.stream(res, { queue: query.queue, type: query.type, status: query.status }, position);
  }

  @Get('jobs/:id/events')
  @ApiAccess('producer')
  @ApiOperation({
    summary: "Stream one job's changes",
    description: `The job's current state first, then each change. ${STREAM_DESCRIPTION}`,
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The job id.' })
  @EVENT_STREAM_ANSWER
  @ApiErrors({
    400: 'The id is not a UUID.',
    404: true,
    503: 'Live events are unavailable (behind a transaction pooler without LISTEN_URL).',
  })
  async jobEvents(@Param('id', JobIdPipe) id: string, @Res() res: unknown): Promise<void> {
    this.mustBeAvailable();
    await this.jobs.get(id);
    await this.stream(res, { id }, null);
  }

  private mustBeAvailable(): void {
    if (!this.feed.available) {
      throw new ServiceUnavailableException('Live events need a LISTEN connection: set LISTEN_URL behind a pooler in transaction mode.');
    }
  }

  private async stream(res: unknown, filter: LiveFilter, position: string | null): Promise<void> {
    const { raw, headers } = takeOver(res);
    await this.feed.open(raw, headers, filter, position, this.settings.live);
  }
}

/**
 * Where a stream resumes: the position of its `Last-Event-ID` (null without one, or an empty one, which EventSource
 * never sends). Any other value is a 400 naming the header: resuming from nothing would lose the gap unseen.
 */
function resumePosition(lastEventId: string | undefined): string | null {
  if (lastEventId === undefined || lastEventId.trim() === '') return null;
  const position = positionOf(lastEventId);
  if (position !== null) return position;
  throw new BadRequestException(
    errorBody(400, 'Invalid request: Last-Event-ID', [
      { field: 'Last-Event-ID', problems: ['must be the id of an event this API sent: <µs since the epoch>.<job id>'] },
    ]),
  );
}

/** The Node response under a platform's reply, with the headers already set on the reply; Fastify lets go of it. */
function takeOver(res: unknown): { raw: ServerResponse; headers: Record<string, string | number | string[]> } {
  const reply = res as { raw?: ServerResponse; hijack?: () => void; getHeaders?: () => Record<string, unknown> };
  if (reply.raw && typeof reply.hijack === 'function') {
    reply.hijack();
    const headers = Object.fromEntries(
      Object.entries(reply.getHeaders?.() ?? {}).filter(([, v]) => v !== undefined) as Array<[string, string | number | string[]]>,
    );
    return { raw: reply.raw, headers };
  }
  return { raw: res as ServerResponse, headers: {} };
}
