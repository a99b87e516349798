import { Socket } from 'node:net';
import { Client, ClientConfig } from 'pg';

/** The TCP socket under each dedicated client, whatever pg wraps around it. */
const tcpSockets = new WeakMap<Client, Socket>();

/**
 * A pg client on a TCP socket of the engine's own making, handed to pg through its `stream` option. Over TLS pg
 * wraps that socket in a TLS socket (`tls.connect({ socket })`) and keeps only the wrapper, which cannot be reset;
 * the socket kept here can, and resetting it ends the wrapper too (see abandonConnection).
 */
export function dedicatedClient(config: ClientConfig): Client {
  const socket = new Socket();
  const client = new Client({ ...config, stream: () => socket });
  // pg's native binding ignores `stream`: a socket it never uses must not be reset (nobody listens for its error).
  if ((client as unknown as { connection?: { stream?: unknown } }).connection?.stream === socket) tcpSockets.set(client, socket);
  return client;
}

/** The TCP socket under `client` when it was made by {@link dedicatedClient}. */
export function tcpSocketOf(client: object): Socket | undefined {
  return tcpSockets.get(client as Client);
}
