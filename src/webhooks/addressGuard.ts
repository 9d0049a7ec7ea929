// Which addresses a webhook may connect to: the SSRF guard refuses every address that is not
// public unicast (loopback, private, link-local, CGNAT, unique-local, multicast, reserved), in
// IPv4, IPv6, and the IPv4-mapped IPv6 forms of them (::ffff:a.b.c.d; node's BlockList matches
// those against the IPv4 rules). IPv6 forms that a translator turns into an IPv4 address (NAT64
// 64:ff9b::/96, SIIT ::ffff:0:0/96, 6to4 2002::/16) are judged by the IPv4 address they carry;
// Teredo (2001::/32, its IPv4 obfuscated) is refused outright.

import { BlockList, isIP } from 'node:net';

const refused = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata: 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255
] as const)
  refused.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 96], // unspecified, loopback ::1 and the deprecated IPv4-compatible ::a.b.c.d
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  refused.addSubnet(net, bits, 'ipv6');

/** The eight 16-bit groups of an IPv6 literal (a trailing dotted quad is two of them). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = text.slice(0, quad.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (t: string | undefined) => (t ? t.split(':').map((g) => parseInt(g, 16)) : []);
  const h = part(head);
  const t = part(tail);
  return tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/** The IPv4 address an IPv6 one carries for a translator (NAT64, SIIT, 6to4), or undefined. */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return quad(g[6]!, g[7]!);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return quad(g[6]!, g[7]!);
  if (g[0] === 0x2002) return quad(g[1]!, g[2]!);
  return undefined;
}

/** True when `address` (an IP literal) is public unicast: a webhook may connect to it. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return !refused.check(address, 'ipv4');
  if (refused.check(address, 'ipv6')) return false;
  const inner = embeddedIpv4(address);
  return inner === undefined || !refused.check(inner, 'ipv4');
}
