import { Client, ClientConfig } from 'pg';
import { engineSocket } from './engine-socket';

/**
 * A pg client outside the pool (worker connection, LISTEN, live events) on an {@link engineSocket}, so that
 * abandoning it resets its TCP connection, over TLS too.
 */
export function dedicatedClient(config: ClientConfig): Client {
  return new Client({ ...config, stream: engineSocket });
}
