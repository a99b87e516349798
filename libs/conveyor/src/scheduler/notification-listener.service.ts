import { Injectable, Logger } from '@nestjs/common';
import { Client } from 'pg';
import { ConveyorDatabase } from '../database/conveyor-database.service';
import { quoteIdent } from '../database/quote';
import { JobPoller } from './job-poller.service';

/**
 * Holds one dedicated connection that LISTENs on the jobs channel and wakes the poller.
 * When the connection drops (restart, pg_terminate_backend) it reconnects with backoff and then
 * wakes the poller once, since notifications sent meanwhile were lost; the poll interval covers the gap.
 */
@Injectable()
export class NotificationListener {
  private readonly logger = new Logger('Conveyor:Listener');
  private client: Client | null = null;
  private stopped = true;
  private retryMs = 100;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private connected = false;

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly poller: JobPoller,
  ) {}

  get isListening(): boolean {
    return this.connected;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    this.connected = false;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client(this.db.clientConfig('listener'));
    this.client = client;
    client.on('notification', (msg) => this.poller.onNotification(msg.payload, msg.processId));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdent(this.db.channel)}`);
      this.connected = true;
      if (this.retryMs > 100) this.logger.log('Listening for new jobs again');
      this.retryMs = 100;
      this.poller.wakeAt(Date.now());
    } catch (err) {
      this.lost(client, err as Error);
    }
  }

  private lost(client: Client, err?: Error): void {
    if (client !== this.client) return;
    this.client = null;
    this.connected = false;
    client.removeAllListeners('end');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    if (this.stopped) return;
    this.logger.warn(`LISTEN connection lost${err ? `: ${err.message}` : ''}; reconnecting in ${this.retryMs} ms`);
    this.reconnectTimer = setTimeout(() => void this.connect(), this.retryMs);
    this.retryMs = Math.min(5000, this.retryMs * 2);
  }
}
