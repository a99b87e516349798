import { maxHeaderSize as defaultMaxHeaderSize, STATUS_CODES } from 'node:http';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from './error-body';

/** How long a refused connection may go on sending before it is closed regardless. */
const LINGER_MS = 2_000;

const answered = new WeakSet<Socket>();

/**
 * Answers what Node's HTTP parser refuses before there is a request for a route to see, in the API's JSON
 * error shape: headers over the server's limit (431), a request that did not arrive in time (408), a chunk
 * extension over its limit (413), anything that is not HTTP (400). Node's own answers have no body.
 *
 * A 'clientError' listener replaces Node's answer in every case, so this one covers them all, and answers
 * only where Node would: on a socket still writable on which no response has begun. It writes the answer
 * with `Connection: close` and half-closes. The socket is then left to read and drop what the client still
 * sends, until the client closes its side or LINGER_MS pass: closing a socket with unread input makes the
 * kernel send a reset, and a client still sending a long header would get the reset instead of the answer.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // Every later chunk the client sends fails to parse again; the first failure was answered.
    if (answered.has(socket)) return;
    answered.add(socket);
    if (err.code === 'ECONNRESET' || !socket.writable || responseBegun(socket)) {
      socket.destroy();
      return;
    }
    const { status, message } = describe(err, server);
    const body = JSON.stringify(errorBody(status, message));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  });
}

function describe(err: NodeJS.ErrnoException, server: Server): { status: number; message: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW': {
      const limit = (server as Server & { maxHeaderSize?: number }).maxHeaderSize ?? defaultMaxHeaderSize;
      return { status: 431, message: `Request headers are larger than ${limit} bytes in all` };
    }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'The request did not arrive in time' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'A chunk extension of the request body is too large' };
    default:
      return { status: 400, message: 'Malformed HTTP request' };
  }
}

/**
 * Whether a response on this connection has already sent its headers (a pipelined request that fails to
 * parse while the one before it is being answered): writing now would corrupt that response. Node's own
 * handler checks the same link from the socket to its current response, which Node does not document.
 */
function responseBegun(socket: Socket): boolean {
  return (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true;
}
