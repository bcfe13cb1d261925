import { isIPv4, isIPv6 } from 'node:net';

/**
 * Why a fetch that someone else's settings steer (a connection's Authority or MetadataUrl)
 * must not go to an address, as a noun phrase ("a loopback address"), or undefined when it
 * may. Whoever can write a connection could otherwise make this server read its own
 * loopback services, its private network or the cloud's instance metadata (credentials)
 * and learn from the answers (server-side request forgery).
 */
export type AddressRule = (address: string) => string | undefined;

const LOOPBACK = 'a loopback address';
const UNSPECIFIED = 'an unspecified address';
const LINK_LOCAL = 'a link-local address';
const PRIVATE = 'a private network address';
const SHARED = 'a carrier-grade NAT (shared) address';
const MULTICAST = 'a multicast address';
const RESERVED = 'a reserved or documentation address';
const CLOUD_METADATA = 'a cloud instance metadata address';

interface Range {
  network: bigint;
  prefix: number;
  /** The reason, or `embedded` when the range carries an IPv4 address that decides. */
  verdict: string | 'embedded';
}

/** IANA's IPv4 Special-Purpose Address Registry (RFC 6890 and successors), most specific first. */
const IPV4_RANGES: readonly Range[] = [
  v4('169.254.169.254', 32, CLOUD_METADATA), // AWS, Azure, Google Cloud, DigitalOcean ...
  v4('169.254.170.2', 32, CLOUD_METADATA), // AWS ECS task metadata
  v4('100.100.100.200', 32, CLOUD_METADATA), // Alibaba Cloud
  v4('192.0.0.192', 32, CLOUD_METADATA), // Oracle Cloud
  v4('0.0.0.0', 8, UNSPECIFIED), // RFC 1122 "this network": 0.0.0.0 reaches this host on Linux
  v4('10.0.0.0', 8, PRIVATE), // RFC 1918
  v4('100.64.0.0', 10, SHARED), // RFC 6598
  v4('127.0.0.0', 8, LOOPBACK),
  v4('169.254.0.0', 16, LINK_LOCAL), // RFC 3927
  v4('172.16.0.0', 12, PRIVATE),
  v4('192.0.0.0', 24, RESERVED), // IETF protocol assignments
  v4('192.0.2.0', 24, RESERVED), // TEST-NET-1
  v4('192.88.99.0', 24, RESERVED), // 6to4 relay anycast, deprecated (RFC 7526)
  v4('192.168.0.0', 16, PRIVATE),
  v4('198.18.0.0', 15, RESERVED), // benchmarking (RFC 2544)
  v4('198.51.100.0', 24, RESERVED), // TEST-NET-2
  v4('203.0.113.0', 24, RESERVED), // TEST-NET-3
  v4('224.0.0.0', 4, MULTICAST),
  v4('240.0.0.0', 4, RESERVED), // and 255.255.255.255, the limited broadcast
];

/**
 * IANA's IPv6 Special-Purpose Address Registry, most specific first. Forms that carry an
 * IPv4 address (mapped, compatible, NAT64's well-known prefix, 6to4) are judged by it, so
 * `::ffff:127.0.0.1` is the loopback address it is. Anything outside global unicast
 * (2000::/3) that no row names is refused as reserved.
 */
const IPV6_RANGES: readonly Range[] = [
  v6('::', 128, UNSPECIFIED),
  v6('::1', 128, LOOPBACK),
  v6('fd00:ec2::254', 128, CLOUD_METADATA), // AWS, over IPv6
  v6('::ffff:0:0', 96, 'embedded'), // IPv4-mapped (RFC 4291 2.5.5.2)
  v6('::', 96, 'embedded'), // IPv4-compatible, deprecated (RFC 4291 2.5.5.1)
  v6('64:ff9b::', 96, 'embedded'), // NAT64 well-known prefix (RFC 6052): a public IPv4 host behind DNS64 stays reachable
  v6('64:ff9b:1::', 48, PRIVATE), // NAT64 local use (RFC 8215): its IPv4 side is the operator's
  v6('2002::', 16, 'embedded'), // 6to4 (RFC 3056)
  v6('2001:db8::', 32, RESERVED), // documentation
  v6('2001::', 23, RESERVED), // IETF protocol assignments: Teredo, benchmarking, ORCHID ...
  v6('3fff::', 20, RESERVED), // documentation (RFC 9637)
  v6('5f00::', 16, RESERVED), // SRv6 SIDs (RFC 9602)
  v6('fc00::', 7, PRIVATE), // unique local (RFC 4193)
  v6('fe80::', 10, LINK_LOCAL),
  v6('fec0::', 10, PRIVATE), // site-local, deprecated (RFC 3879)
  v6('ff00::', 8, MULTICAST),
  v6('2000::', 3, 'allowed'),
  v6('::', 0, RESERVED),
];

/**
 * The default address rule: loopback, unspecified, link-local, private (RFC 1918, unique
 * local), carrier-grade NAT, multicast, reserved and documentation ranges of both
 * families, and the cloud instance metadata addresses, are all refused; so is anything
 * that is not an IP address written canonically (fail closed).
 */
export const forbiddenAddress: AddressRule = (address) => {
  const bare = address.replace(/%.*$/, ''); // an IPv6 zone (`fe80::1%eth0`) says which interface, not where
  if (isIPv4(bare)) return verdictOf(IPV4_RANGES, ipv4Value(bare), 32);
  if (isIPv6(bare)) {
    const value = ipv6Value(bare);
    if (value === undefined) return RESERVED;
    const range = matching(IPV6_RANGES, value, 128);
    if (range?.verdict === 'embedded') return embeddedVerdict(range, value);
    return range?.verdict === 'allowed' ? undefined : (range?.verdict ?? RESERVED);
  }
  return 'not an IP address';
};

/**
 * Host names that must not be looked up at all: this machine's (`localhost`, RFC 6761) and
 * the cloud metadata services' (`metadata.google.internal`), whatever a resolver would say
 * of them, and the `.internal` top-level domain ICANN keeps for private networks.
 */
export function forbiddenHostName(hostname: string): string | undefined {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'names this machine (localhost)';
  if (name === 'metadata.google.internal' || name === 'metadata.goog') return 'names a cloud instance metadata service';
  if (name.endsWith('.internal')) return 'names a private network host (.internal)';
  return undefined;
}

function embeddedVerdict(range: Range, value: bigint): string | undefined {
  // 6to4 carries its IPv4 address in bits 16-47; the other forms in their last 32 bits.
  const embedded = range.prefix === 16 ? (value >> 80n) & 0xffffffffn : value & 0xffffffffn;
  return verdictOf(IPV4_RANGES, embedded, 32);
}

function verdictOf(ranges: readonly Range[], value: bigint, width: number): string | undefined {
  return matching(ranges, value, width)?.verdict;
}

function matching(ranges: readonly Range[], value: bigint, width: number): Range | undefined {
  return ranges.find(
    (range) => value >> BigInt(width - range.prefix) === range.network >> BigInt(width - range.prefix),
  );
}

function v4(address: string, prefix: number, verdict: string): Range {
  return { network: ipv4Value(address), prefix, verdict };
}

function v6(address: string, prefix: number, verdict: string): Range {
  const network = ipv6Value(address);
  if (network === undefined) throw new Error(`not an IPv6 address: ${address}`);
  return { network, prefix, verdict };
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

/** The 128-bit value of an IPv6 address (`::` shortening and a trailing dotted IPv4 part allowed). */
function ipv6Value(address: string): bigint | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted !== undefined) {
    if (!isIPv4(dotted)) return undefined;
    const value = ipv4Value(dotted);
    text = `${text.slice(0, -dotted.length)}${(value >> 16n).toString(16)}:${(value & 0xffffn).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string | undefined) => (half === undefined || half === '' ? [] : half.split(':'));
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill('0'), ...tail];
  if (!all.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return all.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}
