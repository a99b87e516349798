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

  /** Run by the server right after it wrote an answer (the answer is on its way to the client's socket). */
  let afterAnswer: (() => void) | undefined;

  /** How the server's end of the connection ended: a reset, or a clean close. */
  let serverSaw: Promise<'reset' | 'closed'>;

  beforeEach(async () => {
    let seen!: (how: 'reset' | 'closed') => void;
    serverSaw = new Promise((resolve) => (seen = resolve));
    server = createServer((peer) => {
      peer.on('error', (err: NodeJS.ErrnoException) => seen(err.code === 'ECONNRESET' ? 'reset' : 'closed'));
      peer.on('end', () => seen('closed'));
      // A server that answers whatever it is sent.
      peer.on('data', () => {
        peer.write('answer');
        afterAnswer?.();
      });
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

  it('takes an answer that arrived while this process was busy past the deadline, and leaves the connection open', async () => {
    const answer = new Promise<string>((resolve) => socket.once('data', (data) => resolve(data.toString())));
    let result!: Promise<string>;
    const blocked = new Promise<void>((resolve) => {
      afterAnswer = () => {
        afterAnswer = undefined;
        result = withinDeadline(clientOn(socket), answer, 20);
        // The event loop blocks past the deadline while the answer waits in the client's socket.
        const until = Date.now() + 200;
        while (Date.now() < until) {
          // busy
        }
        resolve();
      };
    });
    socket.write('statement');
    await blocked;
    await expect(result).resolves.toBe('answer');
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
