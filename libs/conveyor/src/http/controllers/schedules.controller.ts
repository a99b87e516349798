import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ScheduleControl, ScheduleState } from '../../cron/schedule-control.service';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';
import { JobDto, ScheduleDto, ScheduleListDto } from '../dto';
import { ApiAccess, ApiErrors } from '../openapi';
import { ScheduleNamePipe } from '../pipes/schedule-name.pipe';
import { JobView, toJobView } from './job-view';

const NAME = ApiParam({ name: 'name', description: 'Schedule name: 1-200 of letters, digits, _ . : -', example: 'nightly-report' });
const NOT_FOUND = 'No schedule with this name on this instance.';
const BAD_NAME = 'A malformed schedule name.';

/** Cron schedules: their state, and pause, resume and trigger for admin keys. */
@ApiTags('schedules')
@ConveyorRoutes()
@Controller('schedules')
export class SchedulesController {
  constructor(private readonly schedules: ScheduleControl) {}

  @Get()
  @ApiAccess('producer')
  @ApiOperation({
    summary: 'List cron schedules',
    description: 'Per schedule: its expression, job type and queue, the last and next tick, paused or not.',
  })
  @ApiOkResponse({ type: ScheduleListDto })
  @ApiErrors({ 503: true })
  async list(): Promise<{ schedules: ScheduleState[] }> {
    return { schedules: await this.schedules.list() };
  }

  @Get(':name')
  @ApiAccess('producer')
  @ApiOperation({ summary: 'Get one cron schedule' })
  @NAME
  @ApiOkResponse({ type: ScheduleDto })
  @ApiErrors({ 400: BAD_NAME, 404: NOT_FOUND, 503: true })
  get(@Param('name', ScheduleNamePipe) name: string): Promise<ScheduleState> {
    return this.schedules.get(name);
  }

  @Post(':name/pause')
  @ApiAccess('admin')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Pause a cron schedule',
    description: 'No instance enqueues its ticks until it is resumed. Pausing twice is no error.',
  })
  @NAME
  @ApiOkResponse({ type: ScheduleDto })
  @ApiErrors({ 400: BAD_NAME, 404: NOT_FOUND, 503: true })
  pause(@Param('name', ScheduleNamePipe) name: string): Promise<ScheduleState> {
    return this.schedules.pause(name);
  }

  @Post(':name/resume')
  @ApiAccess('admin')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Resume a cron schedule',
    description: 'Its next tick is the first after now: the ticks that fell while it was paused are not enqueued.',
  })
  @NAME
  @ApiOkResponse({ type: ScheduleDto })
  @ApiErrors({ 400: BAD_NAME, 404: NOT_FOUND, 503: true })
  resume(@Param('name', ScheduleNamePipe) name: string): Promise<ScheduleState> {
    return this.schedules.resume(name);
  }

  @Post(':name/trigger')
  @ApiAccess('admin')
  @ApiOperation({
    summary: 'Enqueue a job for a schedule now',
    description: "One job of the schedule's type and payload, due now, paused or not; the regular ticks are not affected.",
  })
  @NAME
  @ApiCreatedResponse({ type: JobDto, description: 'The job enqueued.' })
  @ApiErrors({ 400: BAD_NAME, 404: NOT_FOUND, 503: true })
  async trigger(@Param('name', ScheduleNamePipe) name: string): Promise<JobView> {
    return toJobView(await this.schedules.trigger(name));
  }
}
