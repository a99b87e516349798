import { createServer, Server, Socket } from 'node:net';
import type { Client } from 'pg';
import { isConnectionError } from './connection-errors';
import { carriageMs, StatementDeadlineError, withinDeadline } from './statement-deadline';

/** A pg client as far as `withinDeadline` sees it: its connection's socket, here a real one to a silent server. */
function clientOn(socket: Socket): Client {
  return { connection: { stream: socket } } as unknown as Client;
}

describe('withinDeadline', () => {
  let server: Server;
  let socket: Socket;

  /** How the server's end of the connection ended: a reset, or a clean close. */
  let serverSaw: Promise<'reset' | 'closed'>;
  /** The server's end of the connection. */
  let serverPeer: Promise<Socket>;

  beforeEach(async () => {
    let seen!: (how: 'reset' | 'closed') => void;
    serverSaw = new Promise((resolve) => (seen = resolve));
    let accepted!: (peer: Socket) => void;
    serverPeer = new Promise((resolve) => (accepted = resolve));
    server = createServer((peer) => {
      accepted(peer);
      peer.on('error', (err: NodeJS.ErrnoException) => seen(err.code === 'ECONNRESET' ? 'reset' : 'closed'));
      peer.on('end', () => seen('closed'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    socket = new Socket();
    await new Promise<void>((resolve) => socket.connect(port, '127.0.0.1', resolve));
  });

  afterEach(async () => {
    socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('answers what the statement answered in time, and leaves the connection open', async () => {
    await expect(withinDeadline(clientOn(socket), Promise.resolve('rows'), 1000)).resolves.toBe('rows');
    expect(socket.destroyed).toBe(false);
  });

  it("passes the statement's own failure on", async () => {
    const failure = new Error('syntax error');
    await expect(withinDeadline(clientOn(socket), Promise.reject(failure), 1000)).rejects.toBe(failure);
    expect(socket.destroyed).toBe(false);
  });

  it('fails an overrun statement as a connection error and abandons its connection', async () => {
    const never = new Promise<never>(() => undefined);
    const overrun = withinDeadline(clientOn(socket), never, 20);
    await expect(overrun).rejects.toBeInstanceOf(StatementDeadlineError);
    expect(isConnectionError(await overrun.catch((err: unknown) => err))).toBe(true);
    expect(socket.destroyed).toBe(true);
  });

  it('resets the abandoned connection instead of closing it, so that the kernel sends nothing of the statement later', async () => {
    const overrun = withinDeadline(clientOn(socket), new Promise<never>(() => undefined), 20);
    await expect(overrun).rejects.toBeInstanceOf(StatementDeadlineError);
    await expect(serverSaw).resolves.toBe('reset');
  });

  it('keeps a connection that goes on bringing its answer past the deadline, and abandons it once it has been silent for as long', async () => {
    // The server sends the answer in pieces for 8 deadlines' time, then stops: the answer arrived in full only once
    // all came, and the connection then stays silent.
    const pieces = 8;
    const server2 = await new Promise<Server>((resolve) => {
      const s = createServer((peer) => {
        let sent = 0;
        const tick = setInterval(() => {
          peer.write('x'.repeat(1000));
          if (++sent === pieces) clearInterval(tick);
        }, 25);
        peer.on('error', () => clearInterval(tick));
        peer.on('close', () => clearInterval(tick));
      });
      s.listen(0, '127.0.0.1', () => resolve(s));
    });
    const streaming = new Socket();
    await new Promise<void>((resolve) => streaming.connect((server2.address() as { port: number }).port, '127.0.0.1', resolve));
    try {
      let received = 0;
      const whole = new Promise<number>((resolve) =>
        streaming.on('data', (d: Buffer) => {
          received += d.length;
          if (received === pieces * 1000) resolve(received);
        }),
      );
      await expect(withinDeadline(clientOn(streaming), whole, 60)).resolves.toBe(pieces * 1000);
      expect(streaming.destroyed).toBe(false);
      // The same connection, silent now: its next statement is abandoned at its deadline.
      await expect(withinDeadline(clientOn(streaming), new Promise<never>(() => undefined), 60)).rejects.toBeInstanceOf(
        StatementDeadlineError,
      );
      expect(streaming.destroyed).toBe(true);
    } finally {
      streaming.destroy();
      await new Promise<void>((resolve) => server2.close(() => resolve()));
    }
  });

  it('reads what arrived while the event loop was busy before taking the connection for dead', async () => {
    // The answer is in the socket's buffer when the deadline passes, unread, since the loop was blocked past it.
    const peer = await serverPeer;
    const answered = new Promise<string>((resolve) => socket.once('data', () => resolve('rows')));
    const result = withinDeadline(clientOn(socket), answered, 20);
    peer.write('answer');
    const until = Date.now() + 80;
    while (Date.now() < until) {
      // busy: the event loop is blocked past the deadline
    }
    await expect(result).resolves.toBe('rows');
    expect(socket.destroyed).toBe(false);
  });

  it('sets no deadline when given none', async () => {
    let answer!: (value: string) => void;
    const late = new Promise<string>((resolve) => (answer = resolve));
    const result = withinDeadline(clientOn(socket), late, Infinity);
    setTimeout(() => answer('late rows'), 30);
    await expect(result).resolves.toBe('late rows');
    expect(socket.destroyed).toBe(false);
  });
});

describe('carriageMs', () => {
  it('allows one ms per 1,000 characters of text parameters, arrays element by element, binary ones by their bytes', () => {
    expect(carriageMs(undefined)).toBe(0);
    expect(carriageMs(['a'.repeat(999), 42, null, true])).toBe(0);
    expect(carriageMs(['a'.repeat(50_000_000)])).toBe(50_000);
    expect(carriageMs([['a'.repeat(1500), null, 'b'.repeat(1500)], Buffer.alloc(2000)])).toBe(5);
  });
});
