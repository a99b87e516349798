import { request } from 'node:http';

/** One answer of {@link postJsonOnNewConnection}. */
export interface RawResponse {
  status: number;
  body: unknown;
  /** Client-side port of the connection, to show that requests really used separate connections. */
  localPort: number;
}

/**
 * POSTs JSON on a connection of its own (`agent: false`: no keep-alive pool, no socket reuse), so
 * concurrent calls reach the server the way independent clients would.
 */
export function postJsonOnNewConnection(
  baseUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, baseUrl),
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'close', ...headers },
      },
      (res) => {
        // Read now: once the connection closes, the socket no longer knows its address.
        const localPort = res.socket.localPort ?? 0;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), localPort }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}
