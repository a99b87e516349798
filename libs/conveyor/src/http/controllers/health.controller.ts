import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { ConveyorHealthIndicator } from '../../observation/health/conveyor-health.indicator';
import { ReadinessLog } from '../../observation/health/readiness-log';
import { HealthReportDto } from '../dto';
import { Public } from '../access/public.decorator';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';

/** Liveness and readiness for orchestrators, in terminus format. Never behind API keys. */
@ApiTags('health')
@ConveyorRoutes()
@Controller('health')
@Public()
export class HealthController {
  private readonly readiness = new ReadinessLog();

  constructor(
    private readonly health: HealthCheckService,
    private readonly conveyor: ConveyorHealthIndicator,
  ) {}

  /**
   * The process is not stuck: its event loop has not been blocked for long lately, and no claim has hung. It says
   * nothing of the database (an outage must not get the process restarted) and stays up while draining: terminus
   * would answer 503 to every check during shutdown, so liveness answers in terminus's format without going through it.
   */
  @Get('live')
  @ApiOperation({
    summary: 'Liveness',
    description:
      'The process is not stuck (event loop not blocked lately, no claim hung); says nothing of the database, and stays up while draining.',
  })
  @ApiOkResponse({ type: HealthReportDto })
  @ApiServiceUnavailableResponse({ type: HealthReportDto, description: 'Stuck: `error` names the failing check; restart the process.' })
  live(): HealthCheckResult {
    const report = this.conveyor.liveness();
    if (report.status !== 'ok') throw new ServiceUnavailableException(report);
    return report;
  }

  /** Ready to take traffic: database reachable, migrations applied, poller alive, not shutting down. */
  @Get('ready')
  @HealthCheck()
  @ApiOperation({
    summary: 'Readiness',
    description: 'Database reachable, migrations applied, poller alive, not shutting down; plus queue counts and pool usage.',
  })
  @ApiOkResponse({ type: HealthReportDto, description: 'Ready.' })
  @ApiServiceUnavailableResponse({ type: HealthReportDto, description: 'Not ready: `error` names the failing checks.' })
  async ready(): Promise<HealthCheckResult> {
    try {
      const result = await this.health.check([
        () => this.conveyor.database(),
        () => this.conveyor.migrations(),
        () => this.conveyor.worker(),
        () => this.conveyor.queue(),
      ]);
      this.readiness.record(result);
      return result;
    } catch (err) {
      if (err instanceof ServiceUnavailableException) this.readiness.record(err.getResponse() as HealthCheckResult);
      throw err;
    }
  }
}
