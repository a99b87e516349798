import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { PrivatePostgres } from '../../support/private-postgres';
import { ServiceProcess, startServiceProcess } from '../../support/service-process';
import { DeliveryReceiver } from './delivery-receiver';
import { TestHost, TestNetwork } from './test-network';

export interface WebhookClusterOptions {
  /** How many hosts (network namespaces) to make. */
  hosts: number;
  /** Starts every instance's WORKER_ID, followed by its host's name. */
  name: string;
  /** How long the receiver holds each delivery (see DeliveryReceiver). */
  deliveryMs: number | ((from: string) => number);
}

/**
 * Instances of the service, each on a host of its own (a network namespace on a bridge), sharing a private
 * PostgreSQL in the root namespace and delivering SEND_WEBHOOK jobs to a receiver there, which records which host
 * delivered which job. `db` is a connection from the root namespace, which no cut reaches.
 */
export class WebhookCluster {
  readonly services = new Map<TestHost, ServiceProcess>();

  private constructor(
    private readonly name: string,
    readonly network: TestNetwork,
    readonly postgres: PrivatePostgres,
    readonly receiver: DeliveryReceiver,
    readonly db: Client,
    private readonly outbox: string,
  ) {}

  static async create(options: WebhookClusterOptions): Promise<WebhookCluster> {
    const network = TestNetwork.create(options.hosts);
    const undo: (() => unknown)[] = [() => network.destroy()];
    try {
      const postgres = await PrivatePostgres.create({ listen: `127.0.0.1,${network.gateway}` });
      undo.unshift(() => postgres.destroy());
      const receiver = new DeliveryReceiver(options.deliveryMs);
      await receiver.start(network.gateway);
      undo.unshift(() => receiver.stop());
      const outbox = mkdtempSync(join(tmpdir(), `conveyor-${options.name}-`));
      undo.unshift(() => rmSync(outbox, { recursive: true, force: true }));
      const db = new Client({ connectionString: postgres.url() });
      await db.connect();
      return new WebhookCluster(options.name, network, postgres, receiver, db, outbox);
    } catch (err) {
      await undoAll(undo);
      throw err;
    }
  }

  get hosts(): TestHost[] {
    return this.network.hosts;
  }

  workerId(host: TestHost): string {
    return `${this.name}-${host.name}`;
  }

  hostOf(workerId: string): TestHost {
    return this.hosts.find((h) => this.workerId(h) === workerId)!;
  }

  /** Starts the service on `host` with these settings besides the database, worker id and outbox. */
  async start(host: TestHost, env: Record<string, string>): Promise<ServiceProcess> {
    const service = await startServiceProcess({
      prefix: host.exec,
      host: host.address,
      env: { DATABASE_URL: this.postgres.url(this.network.gateway), WORKER_ID: this.workerId(host), OUTBOX_DIR: this.outbox, ...env },
    });
    this.services.set(host, service);
    return service;
  }

  /** Inserts `count` webhook jobs addressed to the receiver; answers their ids. */
  async enqueue(count: number): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `INSERT INTO conveyor_jobs (type, payload)
       SELECT 'SEND_WEBHOOK', jsonb_build_object('url', $1::text, 'body', jsonb_build_object('n', n)) FROM generate_series(1, $2) n
       RETURNING id`,
      [this.receiver.url, count],
    );
    return rows.map((r) => r.id);
  }

  /** The worker id holding maintenance leadership now, if any. */
  async leader(): Promise<string | null> {
    const { rows } = await this.db.query<{ holder: string }>('SELECT holder FROM conveyor_leadership WHERE expires_at > now()');
    return rows[0]?.holder ?? null;
  }

  /** Whether the instance on `host` answers its readiness probe with 200 within a second. */
  async ready(host: TestHost): Promise<boolean> {
    const res = await fetch(`${this.services.get(host)!.baseUrl}/health/ready`, { signal: AbortSignal.timeout(1000) }).catch(() => null);
    return res?.status === 200;
  }

  /** Heals every host, stops every instance, and removes the database, receiver, outbox and network. */
  async destroy(): Promise<void> {
    await undoAll([
      () => this.hosts.forEach((host) => this.network.heal(host)),
      () => Promise.all([...this.services.values()].map((s) => s.stop())),
      () => this.db.end(),
      () => this.receiver.stop(),
      () => this.postgres.destroy(),
      () => this.network.destroy(),
      () => rmSync(this.outbox, { recursive: true, force: true }),
    ]);
  }
}

/** Runs every step in order, each whatever the ones before did; throws the first failure once all have run. */
async function undoAll(steps: (() => unknown)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      failures.push(err);
    }
  }
  if (failures.length > 0) throw failures[0];
}
