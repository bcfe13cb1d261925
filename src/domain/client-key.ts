/**
 * The key a client's anonymous work (sign-ins started, discovery lookups) is counted
 * under. An IPv4 client is its address; an IPv6 client is the network it holds, its first
 * `ipv6PrefixLength` bits: one customer routinely holds a whole /64 (2^64 addresses), so
 * counting each address would give it a limit per address and no limit at all. An
 * IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, as a dual-stack socket reports IPv4
 * clients) is the IPv4 client it maps. Anything unreadable counts as itself, cut short.
 */
export function clientKeyOf(address: string, ipv6PrefixLength: number): string {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!bare.includes(':')) return ipv4Words(bare) ? `ip4:${bare}` : unreadable(address);
  const words = ipv6Words(bare);
  if (!words) return unreadable(address);
  if (words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff) {
    return `ip4:${words[6]! >> 8}.${words[6]! & 255}.${words[7]! >> 8}.${words[7]! & 255}`;
  }
  return `ip6:${prefixOf(words, ipv6PrefixLength)}/${ipv6PrefixLength}`;
}

/** The IPv6 prefix lengths a deployment may count by: from a /32 (a whole provider) to 128 (each address alone). */
export const IPV6_PREFIX_LENGTHS = { min: 32, max: 128 } as const;

function unreadable(address: string): string {
  return `other:${address.slice(0, 64)}`;
}

/** Four decimal octets (no leading zeros beyond `0` itself), or undefined. */
function ipv4Words(text: string): [number, number] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255)) {
    return undefined;
  }
  const [a, b, c, d] = parts.map(Number) as [number, number, number, number];
  return [(a << 8) | b, (c << 8) | d];
}

/** The eight 16-bit words of an IPv6 address (`::` shorthand, a trailing IPv4 part, a zone), or undefined. */
function ipv6Words(text: string): number[] | undefined {
  const zone = text.indexOf('%');
  const address = zone === -1 ? text : text.slice(0, zone);
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  return [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
}

/** The words of one side of `::`; an IPv4 part is allowed last only. */
function groupsOf(side: string): number[] | undefined {
  if (side === '') return [];
  const parts = side.split(':');
  const words: number[] = [];
  for (const [index, part] of parts.entries()) {
    if (index === parts.length - 1 && part.includes('.')) {
      const ipv4 = ipv4Words(part);
      if (!ipv4) return undefined;
      words.push(...ipv4);
    } else if (/^[0-9a-fA-F]{1,4}$/.test(part)) words.push(parseInt(part, 16));
    else return undefined;
  }
  return words;
}

/** The first `bits` bits of the address as lower-case hexadecimal words, the rest zero, in full form. */
function prefixOf(words: readonly number[], bits: number): string {
  return words
    .map((word, index) => {
      const kept = Math.max(0, Math.min(16, bits - index * 16));
      const mask = kept === 0 ? 0 : (0xffff << (16 - kept)) & 0xffff;
      return (word & mask).toString(16);
    })
    .join(':');
}

/** True for a loopback client (127.0.0.0/8, ::1, or either as an IPv4-mapped address): a caller on this host. */
export function isLoopbackClient(address: string): boolean {
  const key = clientKeyOf(address, 128);
  return key.startsWith('ip4:127.') || key === 'ip6:0:0:0:0:0:0:0:1/128';
}
