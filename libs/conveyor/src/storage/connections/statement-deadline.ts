import type { Client, PoolClient } from 'pg';
import { tcpSocketOf } from './engine-socket';

/** Code of {@link StatementDeadlineError}; `isConnectionError` counts it as the database being unreachable. */
export const STATEMENT_DEADLINE_CODE = 'CONVEYOR_STATEMENT_DEADLINE';

/** A statement went unanswered past its deadline; its connection was abandoned. */
export class StatementDeadlineError extends Error {
  readonly code = STATEMENT_DEADLINE_CODE;

  constructor(readonly deadlineMs: number) {
    super(`The database did not answer within ${deadlineMs} ms; the connection was abandoned`);
    this.name = 'StatementDeadlineError';
  }
}

/**
 * Characters of parameter text a statement's deadline allows one millisecond for, besides its deadline: about 1 MB/s
 * for carrying the text to the server and parsing and storing it there, well below what a healthy link and server
 * do. A statement carrying a result or payload of tens of MB takes the database seconds; without this, its deadline
 * would abandon a healthy connection and the statement would be sent again.
 */
const CHARS_PER_MS = 1000;

/**
 * How much longer than its deadline a statement carrying `values` may take, in ms: one per CHARS_PER_MS characters of
 * its text parameters (and bytes of its binary ones), arrays counted element by element.
 */
export function carriageMs(values: readonly unknown[] | undefined): number {
  let chars = 0;
  for (const value of values ?? []) chars += sizeOf(value);
  return Math.floor(chars / CHARS_PER_MS);
}

function sizeOf(value: unknown): number {
  if (typeof value === 'string' || Buffer.isBuffer(value)) return value.length;
  if (!Array.isArray(value)) return 0;
  let chars = 0;
  for (const element of value) chars += sizeOf(element);
  return chars;
}

/** The part of a connection's socket that abandoning it uses (a net.Socket; a TLS socket's reset throws). */
interface AbandonedSocket {
  destroy(): void;
  resetAndDestroy?(): void;
}

/**
 * Closes a connection's socket at once, without the goodbye a clean `end()` sends and waits on: on a network
 * that drops packets that goodbye would hang as well. pg fails every statement still pending on the
 * connection (a connection error) and emits 'end'; a pool discards the client when it is released.
 *
 * The socket is reset, not closed: a close leaves the statement's bytes the server has not acknowledged in the
 * kernel, which goes on sending them once the network heals, and the server would then run a statement this
 * process gave up on and will never read the answer to — a claim that takes jobs nobody runs until their leases
 * expire, each losing an attempt. A reset discards them. A TLS socket cannot be reset: the TCP socket under it is,
 * when the engine made it (engineSocket: dedicated clients, and the pool's connections the engine uses), and the TLS
 * socket ends with it; a TLS connection whose TCP socket pg made and keeps to itself (pg's native binding, a pool
 * given a stream of its own) is closed.
 */
export function abandonConnection(client: Client | PoolClient): void {
  const socket = tcpSocketOf(client) ?? (client as unknown as { connection?: { stream?: AbandonedSocket } }).connection?.stream;
  if (!socket) return;
  try {
    if (socket.resetAndDestroy) {
      socket.resetAndDestroy();
      return;
    }
  } catch {
    // not a TCP handle (TLS): closed below
  }
  socket.destroy();
}

/** The stream pg reads a connection's answers from (a TLS socket over TLS), as far as hearing from it needs. */
interface HeardStream {
  on(event: 'data', listener: () => void): unknown;
}

/** When each connection's stream last brought bytes (performance.now()), for the streams a deadline watched. */
const lastHeard = new WeakMap<object, { at: number }>();

/**
 * The record of when `client`'s connection last brought bytes, listening to its stream from the first statement a
 * deadline watches on it; none for a client without a stream (pg's native binding), whose deadline is plain.
 */
function hearingOf(client: Client | PoolClient): { at: number } | undefined {
  const stream = (client as unknown as { connection?: { stream?: HeardStream } }).connection?.stream;
  if (!stream || typeof stream.on !== 'function') return undefined;
  let heard = lastHeard.get(stream);
  if (!heard) {
    const record = { at: 0 };
    stream.on('data', () => (record.at = performance.now()));
    lastHeard.set(stream, record);
    heard = record;
  }
  return heard;
}

/**
 * `answer`, or a {@link StatementDeadlineError} once `deadlineMs` passed with nothing heard from the connection, in
 * which case the connection the statement is on is abandoned: a statement that overran may be stuck in a dead TCP
 * connection, and whatever else waits on that connection would be stuck behind it.
 *
 * The deadline counts silence, not the answer's length: bytes arriving on the connection (this statement's answer, or
 * on a pipelined connection the answers ahead of it) show it alive, and the deadline runs again from the last of them.
 * An answer of many MB (a claim of jobs with large payloads) takes seconds to arrive and parse, which no deadline
 * fixed in advance allows for. The deadline is judged after the event loop's next poll for I/O, so that bytes that
 * arrived while the loop was busy elsewhere count before a connection is taken for dead.
 */
export function withinDeadline<T>(client: Client | PoolClient, answer: Promise<T>, deadlineMs: number): Promise<T> {
  if (!Number.isFinite(deadlineMs)) return answer;
  const heard = hearingOf(client);
  const sentAt = performance.now();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const judge = () => {
      timer = undefined;
      setImmediate(() => {
        if (settled) return;
        const quietMs = performance.now() - Math.max(sentAt, heard?.at ?? 0);
        if (quietMs < deadlineMs) {
          timer = setTimeout(judge, deadlineMs - quietMs);
          return;
        }
        settled = true;
        reject(new StatementDeadlineError(deadlineMs));
        abandonConnection(client);
      });
    };
    timer = setTimeout(judge, deadlineMs);
    answer.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
