import { Inject, Injectable } from '@nestjs/common';
import { HealthCheckResult, HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { CONVEYOR_OPTIONS } from '../../config/conveyor.constants';
import { ConveyorOptions } from '../../config/conveyor-options.interface';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { isPoolFull, poolMax } from '../../storage/connections/pool-checkouts';
import { MigratorService } from '../../storage/migrations/migrator.service';
import { JobPoller } from '../../consumer/job-poller.service';
import { jobCountActive } from '../../storage/statements/job-count-active.sql';
import { run } from '../../storage/statements/statement';
import { WorkerPool } from '../../consumer/worker-pool.service';
import { EventLoopMonitor } from './event-loop-monitor.service';

/** The worker check's reason while the instance shuts down: not ready, by design rather than by fault. */
export const SHUTTING_DOWN = 'shutting down';

/** A probe that did not answer in time. */
class ProbeTimeoutError extends Error {}

/** Resolves `work`, or rejects after `ms`: a health probe must never hang. */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeoutError(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Conveyor's health checks, in terminus style: each returns up/down with data and never throws.
 *
 * Liveness asks only what a restart would cure, and never the database (an outage must not restart every pod):
 * - `eventLoop`: the event loop has not been blocked for `livenessEventLoopDelayMs` at once lately;
 * - `claimLoop`: no claim round has been in flight for `livenessClaimStallMs`.
 *
 * Readiness:
 * - `database`: a round trip within the timeout;
 * - `migrations`: the schema has every migration this build knows;
 * - `worker`: not shutting down, and the poller has claimed (or tried) recently;
 * - `queue`: job counts and pool usage, for dashboards (never down: counts that cannot be read in time are left out).
 */
@Injectable()
export class ConveyorHealthIndicator {
  private stopping = false;
  private countInFlight: Promise<Record<string, number>> | null = null;

  constructor(
    private readonly health: HealthIndicatorService,
    private readonly db: ConveyorDatabase,
    private readonly migrator: MigratorService,
    private readonly poller: JobPoller,
    private readonly pool: WorkerPool,
    private readonly eventLoopMonitor: EventLoopMonitor,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
  ) {}

  /** The engine has begun to stop: `worker` reports down from now on, so traffic goes elsewhere. */
  engineStopping(): void {
    this.stopping = true;
  }

  /** The liveness report: both liveness checks in terminus's format, `status: 'error'` when one is down. */
  liveness(): HealthCheckResult {
    const results: HealthIndicatorResult = { ...this.eventLoop(), ...this.claimLoop() };
    const up = Object.fromEntries(Object.entries(results).filter(([, r]) => r.status === 'up'));
    const down = Object.fromEntries(Object.entries(results).filter(([, r]) => r.status !== 'up'));
    const ok = Object.keys(down).length === 0;
    return { status: ok ? 'ok' : 'error', info: up, error: down, details: results };
  }

  /** Liveness: the event loop turned without a long block over the last window or two (EventLoopMonitor). */
  eventLoop(key = 'eventLoop'): HealthIndicatorResult {
    const check = this.health.check(key);
    const limitMs = this.options.livenessEventLoopDelayMs;
    const maxDelayMs = Math.round(this.eventLoopMonitor.recentMaxDelayMs);
    if (limitMs === 0 || maxDelayMs < limitMs) return check.up({ maxDelayMs });
    return check.down({ message: `the event loop was blocked for ${maxDelayMs} ms (limit ${limitMs} ms)`, maxDelayMs });
  }

  /** Liveness: the worker loop advances — no claim round has hung (each statement has a deadline, so none should). */
  claimLoop(key = 'claimLoop'): HealthIndicatorResult {
    const check = this.health.check(key);
    const limitMs = this.options.livenessClaimStallMs;
    const inFlightMs = Math.round(this.poller.roundInFlightMs);
    if (limitMs === 0 || inFlightMs < limitMs) return check.up({ claimInFlightMs: inFlightMs });
    return check.down({ message: `a claim has been in flight for ${inFlightMs} ms (limit ${limitMs} ms)`, claimInFlightMs: inFlightMs });
  }

  async database(key = 'database', timeoutMs = 1000): Promise<HealthIndicatorResult> {
    const check = this.health.check(key);
    const started = Date.now();
    try {
      // The deadline abandons a connection that does not answer (a network dropping packets) instead of leaving
      // it checked out of the pool.
      const { rows } = await withTimeout(
        this.db.pool.query<{ readOnly: boolean }>(`SELECT current_setting('transaction_read_only') = 'on' AS "readOnly"`, [], {
          deadlineMs: timeoutMs,
        }),
        timeoutMs,
      );
      // A server that answers but cannot take writes (the address reaches a standby during a failover) cannot take
      // jobs either: not ready, so traffic goes elsewhere until the address reaches the primary again.
      if (rows[0]?.readOnly) return check.down({ message: 'the database is read-only (a standby, not the primary)' });
      return check.up({ latencyMs: Date.now() - started });
    } catch (err) {
      return check.down({ message: this.reasonFor(err) });
    }
  }

  async migrations(key = 'migrations', timeoutMs = 1000): Promise<HealthIndicatorResult> {
    const check = this.health.check(key);
    try {
      const ok = await withTimeout(this.migrator.isUpToDate(), timeoutMs);
      return ok
        ? check.up({ latest: this.migrator.latest })
        : check.down({ message: 'migrations not applied', latest: this.migrator.latest });
    } catch (err) {
      return check.down({ message: `cannot tell: ${this.reasonFor(err)}` });
    }
  }

  /**
   * Why a probe's statement failed. One that timed out while every pooled connection was checked out (long handlers
   * or requests holding them), with requests still waiting for one, waited for a connection and never reached the
   * database: saying "timed out" would send the on-call engineer to a database that is fine. With none waiting, the
   * probe had its connection (one of those checked out) and the database did not answer in time.
   */
  private reasonFor(err: unknown): string {
    const pg = this.db.pgPool;
    if (err instanceof ProbeTimeoutError && isPoolFull(pg) && pg.waitingCount > 0) {
      return `${err.message} waiting for a pooled connection: all ${poolMax(pg)} are in use, ${pg.waitingCount} waiting (the database was not asked)`;
    }
    return (err as Error).message;
  }

  worker(key = 'worker'): HealthIndicatorResult {
    const check = this.health.check(key);
    if (this.stopping) return check.down({ message: SHUTTING_DOWN });
    if (!this.options.runWorkers) return check.up({ workers: false });
    const last = this.poller.lastPollAt;
    const maxAge = Math.max(3 * this.options.pollIntervalMs, 5000);
    const age = last ? Date.now() - last.getTime() : null;
    const data = { lastPollAgeMs: age, lastError: this.poller.lastError, ...this.pool.stats() };
    return age !== null && age <= maxAge ? check.up(data) : check.down({ message: 'poller has not run recently', ...data });
  }

  /**
   * Job counts and pool usage, for dashboards and on-call engineers: informational, so always up. Counting a large
   * backlog can outlast the probe's timeout, and a busy queue is no reason to take an instance out of its Service
   * (whether the database answers is the `database` check's question); the counts are then left out, with the
   * reason. Probes share the count in flight, so slow counts never pile up on the pool.
   */
  async queue(key = 'queue', timeoutMs = 1000): Promise<HealthIndicatorResult> {
    const check = this.health.check(key);
    const pg = this.db.pgPool;
    const usage = {
      pool: this.pool.stats(),
      connections: { total: pg.totalCount, idle: pg.idleCount, waiting: pg.waitingCount },
    };
    try {
      return check.up({ ...(await withTimeout(this.countActive(), timeoutMs)), ...usage });
    } catch (err) {
      return check.up({ countsUnavailable: this.reasonFor(err), ...usage });
    }
  }

  /** The active jobs by status, lower-cased; one statement at a time, shared by the probes that ask meanwhile. */
  private countActive(): Promise<Record<string, number>> {
    this.countInFlight ??= run<{ status: string; count: number }>(this.db.pool, jobCountActive(this.db.tables))
      .then(({ rows }) => Object.fromEntries(rows.map((r) => [r.status.toLowerCase(), r.count])))
      .finally(() => (this.countInFlight = null));
    return this.countInFlight;
  }
}
