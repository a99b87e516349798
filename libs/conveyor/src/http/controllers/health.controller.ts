import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { ConveyorHealthIndicator } from '../../observation/health/conveyor-health.indicator';
import { HealthReportDto } from '../dto';
import { Public } from '../access/public.decorator';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';

/** Liveness and readiness for orchestrators, in terminus format. Never behind API keys. */
@ApiTags('health')
@ConveyorRoutes()
@Controller('health')
@Public()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly conveyor: ConveyorHealthIndicator,
  ) {}

  /**
   * The process is up and its event loop answers. It says nothing of the database (an outage must not
   * get the process restarted) and stays up while draining: terminus would answer 503 to every check
   * during shutdown, so liveness answers in terminus's format without going through it.
   */
  @Get('live')
  @ApiOperation({ summary: 'Liveness', description: 'The process answers; says nothing of the database, and stays up while draining.' })
  @ApiOkResponse({ type: HealthReportDto })
  live(): HealthCheckResult {
    return { status: 'ok', info: {}, error: {}, details: {} };
  }

  /** Ready to take traffic: database reachable, migrations applied, poller alive, not shutting down. */
  @Get('ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness', description: 'Database reachable, migrations applied, poller alive, not shutting down; plus queue counts and pool usage.' })
  @ApiOkResponse({ type: HealthReportDto, description: 'Ready.' })
  @ApiServiceUnavailableResponse({ type: HealthReportDto, description: 'Not ready: `error` names the failing checks.' })
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () => this.conveyor.database(),
      () => this.conveyor.migrations(),
      () => this.conveyor.worker(),
      () => this.conveyor.queue(),
    ]);
  }
}
