import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Client } from 'pg';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { HELD_SESSION_SQL } from '../storage/connections/held-session';
import { quoteIdent } from '../storage/connections/quote';
import { abandonConnection } from '../storage/connections/statement-deadline';
import { dedicatedClient } from '../storage/connections/dedicated-client';
import { ReconnectBackoff } from '../storage/connections/reconnect-backoff';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { parseCancelNotice } from '../storage/statements/cancel-notice.codec';
import { parsePauseNotice } from '../storage/statements/pause-notice.codec';
import { parseDueNotice } from '../storage/statements/due-notice.codec';
import { parseWatchNotice } from '../storage/statements/watch-notice.codec';
import { LiveWatchDetector } from '../observation/live/live-watch-detector.service';
import { ClaimTrigger } from './claim-trigger';
import { WorkerPool } from './worker-pool.service';
import { PICKUP_HOOKS, PickupHooks } from './pickup-hooks';

/** How often the idle LISTEN connection is asked for a round trip, to find out that it died silently. */
const PROBE_EVERY_MS = 30_000;
/** How long that round trip may take before the connection is abandoned. */
const PROBE_DEADLINE_MS = 2000;

/**
 * Holds one dedicated connection that LISTENs on the jobs channel and wakes the poller (ClaimTrigger), except for
 * the echo of an insert of this instance's, which woke it already (the local pickup pairs the two), and hands the
 * worker pool the cancel notices addressed to this instance (a running job an operator cancelled), and the live-watch
 * detector the watch notices (some instance serves live subscribers). It is a session
 * of its own: `listenUrl` when set (past a pooler), and none behind a pooler in transaction mode without it
 * (ConveyorDatabase's `listenerConfig`), where workers find new jobs at their poll.
 * When the connection drops (restart, pg_terminate_backend) it reconnects with backoff and then
 * wakes the poller once, since notifications sent meanwhile were lost; the poll interval covers the gap.
 * A connection that receives nothing cannot tell a quiet queue from a dead peer (a server that dropped it during
 * a network partition), so it is probed now and then; TCP keepalive finds a dead peer too, but only slowly.
 */
@Injectable()
export class NotificationListener {
  private readonly logger = new Logger('Conveyor:Listener');
  private client: Client | null = null;
  private stopped = true;
  private readonly backoff = new ReconnectBackoff();
  private reconnectTimer: NodeJS.Timeout | null = null;
  private connected = false;
  private probeTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly trigger: ClaimTrigger,
    @Inject(PICKUP_HOOKS) private readonly pickup: PickupHooks,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    private readonly pool: WorkerPool,
    private readonly watch: LiveWatchDetector,
  ) {}

  get isListening(): boolean {
    return this.connected;
  }

  /** Whether there is a connection to LISTEN on: not behind a pooler in transaction mode without `listenUrl`. */
  get canListen(): boolean {
    return this.db.listenerConfig('listener') !== null;
  }

  async start(): Promise<void> {
    if (!this.canListen) return;
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = null;
    const client = this.client;
    this.client = null;
    this.connected = false;
    this.watch.setListening(false);
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const config = this.db.listenerConfig('listener');
    if (!config) return;
    const client = dedicatedClient(config);
    this.client = client;
    client.on('notification', (msg) => this.notified(msg.payload, msg.processId));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await this.db.queryOn(client, HELD_SESSION_SQL);
      // Last, so that pg_stat_activity shows the connection by what it waits for.
      await this.db.queryOn(client, `LISTEN ${quoteIdent(this.db.channel)}`);
      this.connected = true;
      this.watch.setListening(true);
      if (this.backoff.connected()) this.logger.log('Listening for new jobs again');
      this.probeTimer ??= setInterval(() => void this.probe(), PROBE_EVERY_MS);
      this.trigger.jobsDueNow();
    } catch (err) {
      this.lost(client, err as Error);
    }
  }

  /**
   * A NOTIFY from backend `pid`: a due notice (jobs ready now, or due at times the poller can claim against), a
   * cancel notice, a pause notice or a watch notice. A due notice that echoes an insert of this instance's, which woke
   * the poller already, wakes nothing. A cancel notice addressed to this instance's worker id goes to the pool; one
   * addressed to another instance is ignored. A pause notice goes to the pool. A watch notice goes to the live-watch
   * detector. Anything else wakes the poller.
   */
  private notified(payload: string | undefined, pid: number): void {
    const watchMs = parseWatchNotice(payload);
    if (watchMs !== null) return this.watch.noticed(watchMs);
    const cancel = parseCancelNotice(payload);
    if (cancel) {
      if (cancel.owner === this.options.workerId) this.pool.cancelled(cancel.jobId, cancel.token);
      return;
    }
    const paused = parsePauseNotice(payload);
    if (paused !== null) return this.pool.queuePaused(paused);
    const due = parseDueNotice(payload);
    if (!due) return this.trigger.jobsDueNow();
    if (this.pickup.isEcho(pid, due.at)) return;
    if (due.ready) this.trigger.jobsDueNow();
    else this.trigger.jobsDueAt(due.at);
    for (const at of due.later) this.trigger.jobsDueAt(at);
  }

  /** A round trip on the LISTEN connection; one that fails or overruns is abandoned and replaced. */
  private async probe(): Promise<void> {
    const client = this.client;
    if (!client || !this.connected) return;
    try {
      await this.db.queryOn(client, 'SELECT 1', [], { deadlineMs: PROBE_DEADLINE_MS });
      this.trigger.queriedDatabase();
    } catch (err) {
      this.lost(client, err as Error);
    }
  }

  private lost(client: Client, err?: Error): void {
    if (client !== this.client) return;
    this.client = null;
    this.connected = false;
    this.watch.setListening(false);
    client.removeAllListeners('end');
    client.on('error', () => undefined);
    abandonConnection(client);
    if (this.stopped) return;
    const { waitMs, first } = this.backoff.lost();
    if (first) this.logger.warn(`LISTEN connection lost${err ? `: ${err.message}` : ''}; reconnecting, quietly until it is back`);
    this.reconnectTimer = setTimeout(() => void this.connect(), waitMs);
  }
}
