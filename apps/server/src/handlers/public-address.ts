import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Ranges that do not reach the public internet (IANA special-purpose registries): this host, private
 * networks, shared address space (carrier-grade NAT), link-local (cloud metadata at 169.254.169.254),
 * documentation, benchmarking, multicast and reserved space.
 */
const NON_PUBLIC_V4: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/**
 * The IPv6 counterparts. `::/96` holds the unspecified address, loopback and the deprecated
 * IPv4-compatible addresses; the forms that carry an IPv4 address a router acts on (mapped, NAT64,
 * 6to4) are judged by that IPv4 address instead (see embeddedIPv4).
 */
const NON_PUBLIC_V6: Array<[string, number]> = [
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

const v4 = new BlockList();
for (const [network, prefix] of NON_PUBLIC_V4) v4.addSubnet(network, prefix, 'ipv4');
const v6 = new BlockList();
for (const [network, prefix] of NON_PUBLIC_V6) v6.addSubnet(network, prefix, 'ipv6');

/**
 * Whether an IP address (v4, or v6 without brackets or zone) reaches the public internet. Anything
 * that is not an IP address is not public.
 */
export function isPublicAddress(address: string): boolean {
  if (isIPv4(address)) return !v4.check(address, 'ipv4');
  if (!isIPv6(address)) return false;
  const unzoned = address.split('%')[0];
  const inner = embeddedIPv4(parseIPv6(unzoned));
  if (inner !== undefined) return !v4.check(inner, 'ipv4');
  return !v6.check(unzoned, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (`::ffff:0:0/96`), NAT64 (`64:ff9b::/96`) or 6to4 (`2002::/16`) address. */
function embeddedIPv4(h: number[]): string | undefined {
  const prefixIs = (...start: number[]) => start.every((value, i) => h[i] === value);
  if (prefixIs(0, 0, 0, 0, 0, 0xffff) || prefixIs(0x64, 0xff9b, 0, 0, 0, 0)) return dotted(h[6], h[7]);
  if (h[0] === 0x2002) return dotted(h[1], h[2]);
  return undefined;
}

function dotted(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit groups of a valid IPv6 address without zone (checked by the caller), with `::` and a dotted tail expanded. */
function parseIPv6(address: string): number[] {
  let text = address;
  const dottedTail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dottedTail) {
    const [a, b, c, d] = dottedTail.slice(1).map(Number);
    text = `${text.slice(0, dottedTail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const front = groups(head);
  const back = groups(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - front.length - back.length).fill(0);
  return [...front, ...fill, ...back];
}
