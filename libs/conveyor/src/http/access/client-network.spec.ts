import { clientNetwork } from './client-network';

describe('clientNetwork', () => {
  it('keeps an IPv4 address, also when a dual-stack socket maps it into IPv6', () => {
    expect(clientNetwork('203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const network = '2001:db8:0:1::/64';
    for (const address of [
      '2001:db8:0:1::1',
      '2001:db8:0:1:ffff:ffff:ffff:ffff',
      '2001:0DB8:0000:0001:0:0:0:2',
      '2001:db8:0:1:a::',
      '2001:db8:0:1::5%eth0',
      '2001:db8:0:1:0:0:192.0.2.1',
    ]) {
      expect({ address, network: clientNetwork(address) }).toEqual({ address, network });
    }
    expect(clientNetwork('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(clientNetwork('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientNetwork('2001:db8:1:2:3::')).toBe('2001:db8:1:2::/64');
    // `::` may stand for fewer than four groups: the groups after it then reach into the /64.
    expect(clientNetwork('1:2::3:4:5:6:7')).toBe('1:2:0:3::/64');
    expect(clientNetwork('2001:db8:1::2:3:4:5')).toBe('2001:db8:1:0::/64');
    expect(clientNetwork('::1:2:3:4:5:6:7')).toBe('0:1:2:3::/64');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
    expect(clientNetwork('::')).toBe('0:0:0:0::/64');
  });

  it('passes anything that is no IP address on as it is', () => {
    expect(clientNetwork('unknown')).toBe('unknown');
    expect(clientNetwork('')).toBe('');
  });
});
