import { hostname } from 'node:os';
import { connectionErrorText } from '../storage/connections/connection-errors';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { CONVEYOR_VERSION } from '../config/conveyor-version';
import { WorkerPool } from '../consumer/worker-pool.service';
import { HandlerRegistry } from '../handlers/handler-registry.service';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { instanceDelete, instanceList, InstanceReport, InstanceRow, run } from '../storage/statements';

/** How many maintenance intervals an instance stays listed without a heartbeat: a slow round or two is survived. */
export const INSTANCE_LEASE_INTERVALS = 3;

/** One running instance, as `GET /instances` lists it. */
export interface InstanceState {
  id: string;
  host: string;
  pid: number;
  version: string;
  runsWorkers: boolean;
  concurrency: number;
  /** Handlers running at its last heartbeat. */
  running: number;
  /** Queues of the handlers it runs (each type's default queue), and those types. */
  queues: string[];
  types: string[];
  leader: boolean;
  startedAt: Date;
  lastSeen: Date;
  /** When it stops being listed unless it heartbeats again. */
  expiresAt: Date;
}

/**
 * The registry of running instances in `conveyor_instances`. Each instance upserts its row once per maintenance
 * round (MaintenanceService, which every instance runs: the round's one statement carries it), with a lease of
 * `INSTANCE_LEASE_INTERVALS` intervals by the database's clock, and deletes it when it shuts down cleanly. An
 * instance that dies stops heartbeating: its row is no longer listed once its lease ran out, and the leader's
 * round deletes it.
 */
@Injectable()
export class InstanceRegistry {
  private readonly logger = new Logger('Conveyor:Instances');
  private readonly startedAt = new Date();
  private failing = false;

  constructor(
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    private readonly db: ConveyorDatabase,
    private readonly pool: WorkerPool,
    private readonly handlers: HandlerRegistry,
  ) {}

  /** How long a row is listed after its last heartbeat. */
  get leaseMs(): number {
    return this.options.maintenanceIntervalMs * INSTANCE_LEASE_INTERVALS;
  }

  /** What this instance writes to its row at every heartbeat (the maintenance round's statement carries it). */
  report(): InstanceReport {
    // The pool claims every handler's type but the external ones (WorkerPool.claimRequest).
    const local = this.options.runWorkers ? this.handlers.all().filter((h) => !this.options.externalTypes.includes(h.type)) : [];
    return {
      id: this.options.workerId,
      host: hostname(),
      pid: process.pid,
      version: CONVEYOR_VERSION,
      runsWorkers: this.options.runWorkers,
      concurrency: this.options.runWorkers ? this.options.concurrency : 0,
      running: this.pool.stats().running,
      queues: [...new Set(local.map((h) => h.queue))].sort(),
      types: local.map((h) => h.type).sort(),
      startedAt: this.startedAt,
    };
  }

  /** The heartbeat was written. */
  written(): void {
    if (this.failing) this.logger.log('Instance heartbeat written again');
    this.failing = false;
  }

  /** The heartbeat could not be written: logged once until one is written again. */
  failed(err: Error): void {
    if (!this.failing) this.logger.warn(`Instance heartbeat failed: ${connectionErrorText(err)}`);
    this.failing = true;
  }

  /** Removes this instance's row (a clean shutdown), so it leaves the list at once. */
  async deregister(): Promise<void> {
    await run(this.db.pool, instanceDelete(this.db.tables, this.options.workerId)).catch(() => undefined);
  }

  /** The live instances, oldest first. */
  async list(): Promise<InstanceState[]> {
    const { rows } = await run<InstanceRow>(this.db.pool, instanceList(this.db.tables));
    return rows.map((r) => ({
      id: r.id,
      host: r.host,
      pid: r.pid,
      version: r.version,
      runsWorkers: r.runs_workers,
      concurrency: r.concurrency,
      running: r.running,
      queues: r.queues,
      types: r.types,
      leader: r.leader,
      startedAt: r.started_at,
      lastSeen: r.last_seen,
      expiresAt: r.expires_at,
    }));
  }
}
