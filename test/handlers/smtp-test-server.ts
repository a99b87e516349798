import { SMTPServer } from 'smtp-server';

/** A message the server accepted. */
export interface ReceivedMail {
  mailFrom: string;
  rcptTo: string[];
  raw: string;
}

/** A running loopback SMTP server. */
export interface SmtpTestServer {
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * Starts an SMTP server on 127.0.0.1 (random port) without authentication or TLS. `refusals` maps a
 * recipient address to the reply code it gets at RCPT TO (550: mailbox unavailable, 451: try later).
 */
export async function startSmtpTestServer(refusals: Record<string, number> = {}): Promise<SmtpTestServer> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const code = refusals[address.address.toLowerCase()];
      if (!code) return callback();
      const err = Object.assign(new Error(`${address.address}: ${code >= 500 ? 'mailbox unavailable' : 'try again later'}`), {
        responseCode: code,
      });
      callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
