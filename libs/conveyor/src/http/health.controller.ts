import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { ConveyorHealthIndicator } from '../health/conveyor-health.indicator';

/** Liveness and readiness for orchestrators, in terminus format. Never behind API keys. */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly conveyor: ConveyorHealthIndicator,
  ) {}

  /** The process is up and its event loop answers; says nothing of the database, so a DB outage does not restart it. */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
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
