import { HealthIndicatorService } from '@nestjs/terminus';
import { conveyorDefaults } from '../../config/conveyor-defaults';
import { JobPoller } from '../../consumer/job-poller.service';
import { ConveyorHealthIndicator } from './conveyor-health.indicator';
import { EventLoopMonitor } from './event-loop-monitor.service';

/** The liveness decisions, apart from the clock and the event loop they measure. */
describe('ConveyorHealthIndicator liveness', () => {
  const indicator = (measured: { delayMs?: number; claimInFlightMs?: number }, limits: { loop?: number; claim?: number } = {}) =>
    new ConveyorHealthIndicator(
      new HealthIndicatorService(),
      null as never,
      null as never,
      { roundInFlightMs: measured.claimInFlightMs ?? 0 } as JobPoller,
      null as never,
      { recentMaxDelayMs: measured.delayMs ?? 0 } as EventLoopMonitor,
      { ...conveyorDefaults(), livenessEventLoopDelayMs: limits.loop ?? 5_000, livenessClaimStallMs: limits.claim ?? 120_000 },
    );

  it('is up while the loop turns and claims come back', () => {
    expect(indicator({ delayMs: 30, claimInFlightMs: 12 }).liveness()).toEqual({
      status: 'ok',
      info: { eventLoop: { status: 'up', maxDelayMs: 30 }, claimLoop: { status: 'up', claimInFlightMs: 12 } },
      error: {},
      details: { eventLoop: { status: 'up', maxDelayMs: 30 }, claimLoop: { status: 'up', claimInFlightMs: 12 } },
    });
  });

  it('is down once the event loop was blocked for the limit', () => {
    const report = indicator({ delayMs: 5_000 }).liveness();
    expect(report.status).toBe('error');
    expect(report.error).toEqual({
      eventLoop: { status: 'down', message: 'the event loop was blocked for 5000 ms (limit 5000 ms)', maxDelayMs: 5_000 },
    });
    expect(report.info).toEqual({ claimLoop: { status: 'up', claimInFlightMs: 0 } });
  });

  it('is down while a claim has been in flight for the limit: the worker loop is not advancing', () => {
    const report = indicator({ claimInFlightMs: 120_000 }).liveness();
    expect(report.error).toEqual({
      claimLoop: { status: 'down', message: 'a claim has been in flight for 120000 ms (limit 120000 ms)', claimInFlightMs: 120_000 },
    });
  });

  it('never fails a check whose limit is 0', () => {
    expect(indicator({ delayMs: 60_000, claimInFlightMs: 600_000 }, { loop: 0, claim: 0 }).liveness().status).toBe('ok');
  });
});
