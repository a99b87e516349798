import { createServer, type Server } from 'node:net';
import { findFreePort, isPortFree } from './free-port';

describe('free-port', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('findFreePort returns a port that can be listened on', async () => {
    const port = await findFreePort();
    expect(await isPortFree(port)).toBe(true);
  });

  it('isPortFree is false for a port something listens on', async () => {
    const port = await findFreePort();
    server = createServer();
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    expect(await isPortFree(port)).toBe(false);
  });
});
