import { isIPv6 } from 'node:net';

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * The network a client address stands for, as the rate limit counts it: an IPv4 address on its own (also when
 * it reaches a dual-stack socket as `::ffff:a.b.c.d`), an IPv6 address by its /64. A single IPv6 host is handed
 * a whole /64 and may send every request from another address in it, so counting IPv6 addresses one by one
 * would limit nobody. Anything else (no address, a name) is passed on as it is.
 */
export function clientNetwork(address: string): string {
  const mapped = MAPPED_IPV4.exec(address)?.[1];
  if (mapped) return mapped;
  const bare = address.split('%')[0];
  if (!isIPv6(bare)) return address;
  const [head, tail] = bare.split('::');
  const groups = head ? head.split(':') : [];
  // With `::`, what is not written is zeros; a trailing dotted quad only ever fills the last 32 bits.
  if (tail !== undefined) groups.push('0', '0', '0', '0');
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
