import { Socket } from 'node:net';
import { Client, ClientConfig, Pool } from 'pg';
import { engineSocket, giveEngineSockets, predatesEngineSockets, tcpSocketOf } from './engine-socket';

/** The options a pool hands to each client it makes. */
const optionsOf = (pool: Pool) => (pool as unknown as { options: ClientConfig }).options;

/** A client as the pool makes one when it opens a connection. */
const poolClient = (pool: Pool): Client => new (pool as unknown as { Client: typeof Client }).Client(optionsOf(pool));

describe('engine sockets', () => {
  it('are recorded against the pg connection that asked for one, and are what that connection uses', () => {
    const client = new Client({ stream: engineSocket });
    const socket = tcpSocketOf(client);
    expect(socket).toBeInstanceOf(Socket);
    expect((client as unknown as { connection: { stream: unknown } }).connection.stream).toBe(socket);
  });

  it("are looked up on a client's pg connection, so a client without one (as the native binding's) has none to reset", () => {
    const nativeLike = { stream: engineSocket };
    expect(tcpSocketOf(nativeLike)).toBeUndefined();
  });

  it('are given to every client a pool makes after giveEngineSockets, and a client made before is told apart', () => {
    const pool = new Pool({ max: 3 });
    const before = poolClient(pool);
    giveEngineSockets(pool);
    const after = poolClient(pool);
    expect(tcpSocketOf(after)).toBeInstanceOf(Socket);
    expect(predatesEngineSockets(pool, after)).toBe(false);
    expect(tcpSocketOf(before)).toBeUndefined();
    expect(predatesEngineSockets(pool, before)).toBe(true);
    expect(predatesEngineSockets(pool, {})).toBe(false);
  });

  it("keep a stream the pool's options already give (TypeORM's extra.stream), and then no client predates them", () => {
    const own = () => new Socket();
    const pool = new Pool({ stream: own });
    giveEngineSockets(pool);
    expect(optionsOf(pool).stream).toBe(own);
    expect(predatesEngineSockets(pool, poolClient(pool))).toBe(false);
  });
});
