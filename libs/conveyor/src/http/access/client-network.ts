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
  return `${groupsOf(bare)
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * The eight 16-bit groups of a valid IPv6 address, as written (hex). `::` stands for as many zero groups as the
 * address lacks, which may be fewer than four: `1:2::3:4:5:6:7` has a 3 in its fourth group. A trailing dotted quad
 * is the last two groups.
 */
function groupsOf(address: string): string[] {
  const written = (part: string): string[] => (part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const [head, tail] = address.split('::');
  if (tail === undefined) return written(head);
  const before = written(head);
  const after = written(tail);
  return [...before, ...Array.from({ length: 8 - before.length - after.length }, () => '0'), ...after];
}
