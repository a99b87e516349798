import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { ConveyorHealthIndicator } from '../health/conveyor-health.indicator';
import { Public } from './public.decorator';

/** Liveness and readiness for orchestrators, in terminus format. Never behind API keys. */
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
  live(): HealthCheckResult {
    return { status: 'ok', info: {}, error: {}, details: {} };
  }

  /** Ready to take traffic: database reachable, migrations applied, poller alive, not shutting down. */
  @Get('ready')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () => this.conveyor.database(),
      () => this.conveyor.migrations(),
      () => this.conveyor.worker(),
      () => this.conveyor.queue(),
    ]);
  }
}
