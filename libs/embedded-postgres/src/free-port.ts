import { createServer } from 'node:net';

const LOOPBACK = '127.0.0.1';

/**
 * Resolves with a TCP port on 127.0.0.1 that nothing listens on right now (the OS picks it).
 * Another process could take it before it is used; for a local server started right away that
 * window is small enough.
 */
export function findFreePort(): Promise<number> {
  return listenOnce(0).then((port) => {
    if (port === undefined) throw new Error('The OS did not hand out a free TCP port.');
    return port;
  });
}

/** Whether `port` on 127.0.0.1 can be listened on right now. */
export async function isPortFree(port: number): Promise<boolean> {
  return (await listenOnce(port)) !== undefined;
}

/** Listens on `port` and closes again; resolves with the bound port, or undefined when refused. */
function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen({ port, host: LOOPBACK, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}
