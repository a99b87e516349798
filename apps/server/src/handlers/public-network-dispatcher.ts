import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector, Dispatcher } from 'undici';
import { isPublicAddress } from './public-address';

/** A connection refused because its address is not public; see {@link publicNetworkDispatcher}. */
export class PrivateAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrivateAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * `dns.lookup` that fails unless every address the name resolves to is public. Checking all of them,
 * not only the one connected to, keeps a name that mixes public and private answers from reaching the
 * private one on a later try (several addresses are tried in turn when one fails).
 */
function publicLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) return callback(new PrivateAddressError(`${hostname} resolves to ${refused.address}, which is not a public address`), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

const connectByPublicLookup = buildConnector({ lookup: publicLookup } as buildConnector.BuildOptions);

/**
 * Checks the address at connect time, on every new connection: a name is resolved by the connection
 * itself (publicLookup), so the address checked is the address connected to and DNS rebinding cannot
 * slip between a check and the connect. Node does not call `lookup` for an IP literal, so a literal
 * host is checked here before connecting.
 */
const connectPublicOnly: buildConnector.connector = (options, callback) => {
  const { hostname } = options;
  if (isIP(hostname) && !isPublicAddress(hostname)) {
    callback(new PrivateAddressError(`${hostname} is not a public address`), null);
    return;
  }
  connectByPublicLookup(options, callback);
};

let publicOnly: Agent | undefined;

/**
 * The dispatcher for requests to URLs a job's payload names: with `allowPrivateNetworks` undici's
 * global one, otherwise one shared Agent that connects to public addresses only, so a producer cannot
 * make the service call loopback, private networks or cloud metadata and read the answer.
 */
export function publicNetworkDispatcher(allowPrivateNetworks: boolean): Dispatcher | undefined {
  if (allowPrivateNetworks) return undefined;
  publicOnly ??= new Agent({ connect: connectPublicOnly });
  return publicOnly;
}

/** The PrivateAddressError a failed fetch was caused by, if any. */
export function privateAddressRefusal(err: unknown): PrivateAddressError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    if (current instanceof PrivateAddressError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
