import { Injectable, Logger } from '@nestjs/common';
import type { Client } from 'pg';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { HELD_SESSION_SQL } from '../../storage/connections/held-session';
import { quoteIdent } from '../../storage/connections/quote';
import { abandonConnection } from '../../storage/connections/statement-deadline';
import { dedicatedClient } from '../../storage/connections/dedicated-client';
import { ReconnectBackoff } from '../../storage/connections/reconnect-backoff';
import { LiveItem } from '../live/live-event';

/** What the listener hands on. */
export interface LiveListenerSink {
  /** The items of one notification. */
  items(items: LiveItem[]): void;
  /** The connection is (again) listening: whatever was announced while it was not is lost, so catch up. */
  listening(): void;
}

/**
 * The LISTEN connection of live events, open only while this instance has subscribers (LiveFeed starts and stops
 * it). Like the workers' NotificationListener, a session of its own (`listenUrl` past a pooler; none behind a
 * pooler in transaction mode without it, where live events are unavailable), reconnecting with backoff.
 */
@Injectable()
export class LiveListener {
  private readonly logger = new Logger('Conveyor:Live');
  private client: Client | null = null;
  private sink: LiveListenerSink | null = null;
  private readonly backoff = new ReconnectBackoff();
  private reconnectTimer: NodeJS.Timeout | null = null;

  constructor(private readonly db: ConveyorDatabase) {}

  /** Whether live events can be served at all: there is a connection to LISTEN on. */
  get available(): boolean {
    return this.db.listenerConfig('live') !== null;
  }

  /** Starts listening (resolves once LISTEN is in place, or after the first failure, which it keeps retrying). */
  async start(sink: LiveListenerSink): Promise<void> {
    if (this.sink) return;
    this.sink = sink;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.sink = null;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const config = this.db.listenerConfig('live');
    if (!this.sink || !config) return;
    const client = dedicatedClient(config);
    this.client = client;
    client.on('notification', (msg) => this.notified(msg.payload));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await this.db.queryOn(client, HELD_SESSION_SQL);
      // Last, so that pg_stat_activity shows the connection by what it waits for.
      await this.db.queryOn(client, `LISTEN ${quoteIdent(this.db.liveChannel)}`);
      if (this.backoff.connected()) this.logger.log('Live LISTEN connection back');
      this.sink?.listening();
    } catch (err) {
      this.lost(client, err as Error);
    }
  }

  private notified(payload: string | undefined): void {
    let items: LiveItem[];
    try {
      items = JSON.parse(payload ?? '[]') as LiveItem[];
    } catch {
      return;
    }
    if (Array.isArray(items)) this.sink?.items(items);
  }

  private lost(client: Client, err?: Error): void {
    if (client !== this.client) return;
    this.client = null;
    client.removeAllListeners('end');
    client.on('error', () => undefined);
    abandonConnection(client);
    if (!this.sink) return;
    const { waitMs, first } = this.backoff.lost();
    if (first) this.logger.warn(`Live LISTEN connection lost${err ? `: ${err.message}` : ''}; reconnecting, quietly until it is back`);
    this.reconnectTimer = setTimeout(() => void this.connect(), waitMs);
  }
}
