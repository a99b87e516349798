import { Socket } from 'node:net';
import type { Pool } from 'pg';

/** The TCP socket under each pg connection made on an engine socket, whatever pg wraps around it. */
const tcpSockets = new WeakMap<object, Socket>();

/**
 * pg's `stream` option as a function: a TCP socket of the engine's own making for each connection. Over TLS pg wraps
 * it in a TLS socket (`tls.connect({ socket })`) and keeps only the wrapper, which cannot be reset; the socket kept
 * here can, and resetting it ends the wrapper too (see abandonConnection). pg calls it as a method of the connection
 * it makes (`this.stream(config)`), so the socket is recorded against that connection. pg's native binding never
 * calls it: nothing is recorded for its connections, and no socket nobody listens on is made or ever reset.
 */
export function engineSocket(this: unknown): Socket {
  const socket = new Socket();
  if (typeof this === 'object' && this !== null) tcpSockets.set(this, socket);
  return socket;
}

/** The TCP socket under `client` when its connection was made on an {@link engineSocket}. */
export function tcpSocketOf(client: object): Socket | undefined {
  const connection = (client as { connection?: object }).connection;
  return connection ? tcpSockets.get(connection) : undefined;
}

/** The options pg's pool hands to every client it makes. */
function optionsOf(pool: Pool): { stream?: unknown } {
  return (pool as unknown as { options: { stream?: unknown } }).options;
}

/**
 * Makes every connection `pool` opens from now on sit on an {@link engineSocket}, unless its options already give a
 * `stream` of their own (TypeORM's `extra.stream`), which is kept.
 */
export function giveEngineSockets(pool: Pool | undefined): void {
  if (pool && optionsOf(pool).stream === undefined) optionsOf(pool).stream = engineSocket;
}

/**
 * True for a connection of `pool` whose TCP socket pg made although the pool now gives engine sockets: one opened
 * before {@link giveEngineSockets} (TypeORM opens one as it starts), which could only be closed if abandoned. A
 * client without a pg connection (the native binding) never is.
 */
export function predatesEngineSockets(pool: Pool, client: object): boolean {
  return optionsOf(pool).stream === engineSocket && (client as { connection?: object }).connection !== undefined && !tcpSocketOf(client);
}
