import { Logger } from '@nestjs/common';
import { HealthCheckResult } from '@nestjs/terminus';
import { SHUTTING_DOWN } from './conveyor-health.indicator';

/**
 * Logs readiness when it changes, not at every probe: "Not ready" with the failing checks and their reasons when the
 * set of failing checks changes, "Ready again" when none fails any more. Orchestrators probe every few seconds, and a
 * line per failed probe (terminus's own logging, switched off where TerminusModule is imported) would flood the log
 * at error level through every outage and every deploy. A readiness that fails only because the instance is shutting
 * down is logged at the normal level: that is the termination sequence, not a fault.
 */
export class ReadinessLog {
  private readonly logger = new Logger('Conveyor:Health');
  /** Names of the checks that failed at the last probe, joined; '' while ready. */
  private failing = '';

  record(result: HealthCheckResult): void {
    const down = Object.entries(result.error ?? {});
    const failing = down.map(([name]) => name).join(',');
    if (failing === this.failing) return;
    const wasReady = this.failing === '';
    this.failing = failing;
    if (failing === '') {
      if (!wasReady) this.logger.log('Ready again');
      return;
    }
    const reasons = down.map(([name, check]) => `${name}: ${String((check as { message?: unknown }).message ?? 'down')}`).join('; ');
    const onlyStopping = down.every(([, check]) => (check as { message?: unknown }).message === SHUTTING_DOWN);
    if (onlyStopping) this.logger.log(`Not ready: ${reasons}`);
    else this.logger.warn(`Not ready: ${reasons}`);
  }
}
