import { createServer, Server, Socket } from 'node:net';

/** How a client ended its connection: a TCP reset, or a clean close (FIN). */
export type ClientEnding = 'reset' | 'closed';

/**
 * A loopback TCP proxy in front of a server — PostgreSQL, or Conveyor's HTTP API — so a test can make it
 * unreachable for one client (cut every connection and refuse new ones) and bring it back, without touching the
 * shared server, or re-point it at another server (a failover: the address the app uses now reaches the promoted
 * standby).
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private up = true;
  port = 0;
  /** Connections refused while cut: a client that tried, and found nothing there. */
  refused = 0;
  /**
   * How each client ended its connection, by the local port of the proxy's connection upstream: the `client_port`
   * PostgreSQL shows for that session. Pending while the client has not ended it (the proxy cutting it is no ending).
   */
  readonly clientEndings = new Map<number, Promise<ClientEnding>>();

  constructor(
    private targetHost: string,
    private targetPort: number,
  ) {}

  /** Starts listening on a free loopback port. */
  async start(): Promise<this> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  /** Rewrites a PostgreSQL URL to go through this proxy. */
  urlFor(databaseUrl: string): string {
    const u = new URL(databaseUrl);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  /** Cuts every open connection and refuses new ones until `restore()`. */
  cut(): void {
    this.up = false;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.up = true;
  }

  /**
   * Sends new connections to `port` (on `host`, by default the current target host) and cuts every open one,
   * as a virtual IP or DNS name moved to another server does: nothing still open reaches the old target.
   */
  retarget(port: number, host = this.targetHost): void {
    this.targetHost = host;
    this.targetPort = port;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    if (!this.up) {
      this.refused++;
      client.destroy();
      return;
    }
    const upstream = new Socket();
    upstream.connect(this.targetPort, this.targetHost);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
    }
    const ending = new Promise<ClientEnding>((resolve) => {
      client.once('end', () => resolve('closed'));
      client.once('error', (err: NodeJS.ErrnoException) => err.code === 'ECONNRESET' && resolve('reset'));
    });
    upstream.once('connect', () => this.clientEndings.set(upstream.localPort!, ending));
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}
