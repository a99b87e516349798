import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext, TLSSocket } from 'node:tls';
import { Client } from 'pg';
import { SelfSignedCertificate, selfSignedCertificate } from '../../../../../test/support/self-signed-certificate';
import { dedicatedClient } from './dedicated-client';
import { abandonConnection } from './statement-deadline';

/**
 * A pg client over TLS to a server that speaks PostgreSQL's TLS opening (SSLRequest answered 'S', then a TLS
 * handshake) and never answers the startup message that follows: the client is abandoned with that message
 * unanswered, as a statement is at its deadline.
 */
describe('abandoning a connection over TLS', () => {
  let dir: string;
  let certificate: SelfSignedCertificate;
  let server: Server;
  let port: number;
  /** The startup message arrived, encrypted: the client is on TLS. */
  let startupArrived: Promise<void>;
  /** How the server's end of the connection ended: a reset, or a clean close. */
  let serverSaw: Promise<'reset' | 'closed'>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'conveyor-tls-'));
    certificate = selfSignedCertificate(dir);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeEach(async () => {
    let arrived!: () => void;
    startupArrived = new Promise((resolve) => (arrived = resolve));
    let seen!: (how: 'reset' | 'closed') => void;
    serverSaw = new Promise((resolve) => (seen = resolve));
    server = createServer((plain) => {
      plain.once('data', () => {
        plain.write('S');
        // TLS 1.2: a TLS 1.3 server sends session tickets after the handshake, and a client that closes with them
        // unread makes its kernel answer with a reset whichever way the socket was ended.
        const secureContext = createSecureContext({ key: certificate.key, cert: certificate.cert, maxVersion: 'TLSv1.2' });
        const peer = new TLSSocket(plain, { isServer: true, secureContext });
        peer.once('data', () => arrived());
        peer.on('error', (err: NodeJS.ErrnoException) => seen(err.code === 'ECONNRESET' ? 'reset' : 'closed'));
        peer.on('close', () => seen('closed'));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const abandonOnTls = async (client: Client): Promise<'reset' | 'closed'> => {
    client.on('error', () => undefined);
    const connecting = client.connect().catch((err: unknown) => err);
    await startupArrived;
    abandonConnection(client);
    await connecting;
    return serverSaw;
  };

  it('resets the TCP connection under the TLS one when the engine made it, so that the kernel sends nothing of the statement later', async () => {
    const client = dedicatedClient({ host: '127.0.0.1', port, user: 'u', database: 'd', ssl: { ca: certificate.cert } });
    await expect(abandonOnTls(client)).resolves.toBe('reset');
  });

  it('can only close a TLS connection whose TCP socket pg made itself', async () => {
    const client = new Client({ host: '127.0.0.1', port, user: 'u', database: 'd', ssl: { ca: certificate.cert } });
    await expect(abandonOnTls(client)).resolves.toBe('closed');
  });
});
