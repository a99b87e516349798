import { createServer, Server } from 'node:http';

/** One webhook delivery: the job (its Idempotency-Key), the host it came from and when. */
export interface Delivery {
  jobId: string;
  from: string;
  at: number;
}

/**
 * The far end of SEND_WEBHOOK jobs in cluster tests: records every delivery with the address of the host that sent
 * it, and answers after `delayMs` so that jobs take a while: a number, or how long for deliveries from an address.
 */
export class DeliveryReceiver {
  readonly deliveries: Delivery[] = [];
  private readonly server: Server;
  private port = 0;
  private address = '';

  constructor(private readonly delayMs: number | ((from: string) => number)) {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const from = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
        this.deliveries.push({ jobId: String(req.headers['idempotency-key']), from, at: Date.now() });
        const delayMs = typeof this.delayMs === 'number' ? this.delayMs : this.delayMs(from);
        setTimeout(() => res.writeHead(200).end(), delayMs).unref();
      });
    });
  }

  /** Listens on `address` (the test network's gateway). */
  async start(address: string): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, address, resolve));
    this.port = (this.server.address() as { port: number }).port;
    this.address = address;
  }

  /** The URL jobs deliver to. */
  get url(): string {
    return `http://${this.address}:${this.port}/deliveries`;
  }

  /** How many deliveries each job got, for the jobs that got more than one. */
  repeats(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const d of this.deliveries) counts.set(d.jobId, (counts.get(d.jobId) ?? 0) + 1);
    return new Map([...counts].filter(([, n]) => n > 1));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
