import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from './config/conveyor.constants';
import { ConveyorOptions } from './config/conveyor-options.interface';
import { ConveyorHealthIndicator } from './observation/health/conveyor-health.indicator';
import { MaintenanceService } from './maintenance/maintenance.service';
import { JobPoller } from './consumer/job-poller.service';
import { NotificationListener } from './consumer/notification-listener.service';
import { LeaseKeeper } from './consumer/lease-keeper.service';
import { WorkerPool } from './consumer/worker-pool.service';

/**
 * Starts the engine's moving parts once the application is up, and stops them in order on shutdown:
 * stop claiming (and report not-ready), let running jobs finish within the grace period, hand back the
 * rest, write every outcome, then stop heartbeats and maintenance. Nest closes the DataSource only after
 * `beforeApplicationShutdown`, so all of this still has its database.
 */
@Injectable()
export class WorkerOrchestrator implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Conveyor');
  private stopping = false;
  /** The engine's stop, once begun: a second close waits for it. */
  private stopRun: Promise<void> | null = null;
  private hurryUp!: () => void;
  private readonly hurried = new Promise<void>((resolve) => (this.hurryUp = resolve));

  constructor(
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    private readonly pool: WorkerPool,
    private readonly leaseKeeper: LeaseKeeper,
    private readonly poller: JobPoller,
    private readonly listener: NotificationListener,
    private readonly maintenance: MaintenanceService,
    private readonly health: ConveyorHealthIndicator,
  ) {}

  get isStopping(): boolean {
    return this.stopping;
  }

  /**
   * A worker's first claim goes out before the leader's maintenance round and the LISTEN connection start, so
   * that the worker connection is not opened while two other backends start beside it and the first claim does
   * not share the database with the maintenance statements. Nothing is missed meanwhile: once listening, the
   * listener wakes the poller for whatever was announced before.
   */
  async onApplicationBootstrap(): Promise<void> {
    // A stop that came first wins: an HTTP app's close() does not wait for its start-up (a signal while migrations
    // wait for another instance, say), and a worker started after its stop claims jobs that nothing hands back.
    if (this.stopping) return;
    if (!this.options.runWorkers) {
      this.maintenance.start();
      return;
    }
    this.pool.start();
    this.leaseKeeper.start();
    await this.poller.start();
    // Stopped during the first claim: the stop took care of what had started; start nothing more.
    if (this.stopping) return;
    this.maintenance.start();
    if (this.options.listen) {
      if (this.listener.canListen) {
        await this.listener.start();
        // Stopped while the listener started: the stop found nothing to stop yet.
        if (this.stopping) return this.listener.stop();
      } else
        this.logger.log(
          `No LISTEN behind a ${this.options.pooler}-mode pooler without listenUrl: polling every ${this.options.pollIntervalMs} ms`,
        );
    }
    this.logger.log(
      `Worker ${this.options.workerId} started: strategy ${this.options.claimStrategy}, concurrency ${this.options.concurrency}`,
    );
  }

  /**
   * The first step of a termination: report not ready from now on, so that load balancers and orchestrators stop
   * sending traffic, while everything keeps working — requests are served and jobs claimed — until the app is
   * closed (`beforeApplicationShutdown`).
   */
  beginDraining(): void {
    this.health.engineStopping();
  }

  /** Skip the rest of the grace period (a second SIGTERM): hand back running jobs now. */
  hurry(): void {
    this.hurryUp();
  }

  /**
   * Stops the engine; a second call (the app closed twice) answers when the first stop has ended, not at once: Nest
   * goes on to close the DataSource when this returns, and the first stop still needs it for the outcomes it writes.
   */
  beforeApplicationShutdown(): Promise<void> {
    this.stopRun ??= this.stop();
    return this.stopRun;
  }

  private async stop(): Promise<void> {
    this.stopping = true;
    this.health.engineStopping();
    const claimsEnded = this.poller.stop();
    await this.listener.stop();
    const unwritten = this.options.runWorkers ? await this.pool.stop(this.options.shutdownGraceMs, this.hurried, claimsEnded) : 0;
    await this.leaseKeeper.stop();
    await this.maintenance.stop();
    if (unwritten === 0) this.logger.log('Worker stopped; every claimed job was finished or handed back');
    else this.logger.warn(`Worker stopped; ${unwritten} jobs were left to their leases (their outcomes could not be written)`);
  }
}
