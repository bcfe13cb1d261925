/**
 * Which connection holds an e-mail domain: exact domains in one map, wildcards
 * (`*.example.com`) in another, so a lookup is a map read per label of the domain (a
 * handful), whatever the number of connections.
 */
export class DomainOwners<T> {
  readonly #exact = new Map<string, T>();
  readonly #wildcard = new Map<string, T>();
  /**
   * For each domain strictly above a held entry (exact or wildcard), the owners below it,
   * each with the number of its entries there: what a new wildcard over that domain would
   * overlap, found by one map read instead of a scan of every entry (a start with a
   * thousand connections scanned a million times).
   */
  readonly #below = new Map<string, Map<T, number>>();

  /** Claims a normalized pattern; the owner already holding it, if any (nothing is changed then). */
  claim(pattern: string, owner: T): T | undefined {
    const [map, key] = pattern.startsWith('*.') ? [this.#wildcard, pattern.slice(2)] : [this.#exact, pattern];
    const holder = map.get(key);
    if (holder !== undefined) return holder;
    map.set(key, owner);
    for (let above = parentOf(key); above !== undefined; above = parentOf(above)) {
      const owners = this.#below.get(above) ?? new Map<T, number>();
      owners.set(owner, (owners.get(owner) ?? 0) + 1);
      this.#below.set(above, owners);
    }
    return undefined;
  }

  release(pattern: string): void {
    const [map, key] = pattern.startsWith('*.') ? [this.#wildcard, pattern.slice(2)] : [this.#exact, pattern];
    const owner = map.get(key);
    if (owner === undefined) return;
    map.delete(key);
    for (let above = parentOf(key); above !== undefined; above = parentOf(above)) {
      const owners = this.#below.get(above);
      const count = owners?.get(owner) ?? 0;
      if (count > 1) owners?.set(owner, count - 1);
      else owners?.delete(owner);
      if (owners?.size === 0) this.#below.delete(above);
    }
  }

  /** The owner of a normalized domain: its exact entry, else the nearest wildcard above it. */
  ownerOf(domain: string): T | undefined {
    const exact = this.#exact.get(domain);
    if (exact !== undefined) return exact;
    for (let dot = domain.indexOf('.'); dot !== -1; dot = domain.indexOf('.', dot + 1)) {
      const owner = this.#wildcard.get(domain.slice(dot + 1));
      if (owner !== undefined) return owner;
    }
    return undefined;
  }

  /**
   * The owner of any pattern overlapping `pattern`, other than one `isAsking` (the earlier
   * version of the connection that asks): for a domain, `ownerOf`; for a wildcard
   * `*.base`, a wildcard at `base` or above it, or an owner of an entry below `base`. Only
   * below can several owners overlap one pattern; above, two would overlap each other.
   */
  overlapping(pattern: string, isAsking: (owner: T) => boolean = () => false): T | undefined {
    const other = (owner: T | undefined) => (owner === undefined || isAsking(owner) ? undefined : owner);
    if (!pattern.startsWith('*.')) return other(this.ownerOf(pattern));
    const base = pattern.slice(2);
    for (let suffix: string | undefined = base; suffix !== undefined; suffix = parentOf(suffix)) {
      const owner = this.#wildcard.get(suffix);
      if (owner !== undefined) return other(owner);
    }
    for (const owner of this.#below.get(base)?.keys() ?? []) if (!isAsking(owner)) return owner;
    return undefined;
  }

  /** True when the normalized domain matches the pattern, by the same rule as `ownerOf`. */
  static covers(pattern: string, domain: string): boolean {
    return pattern.startsWith('*.') ? domain.endsWith(pattern.slice(1)) : pattern === domain;
  }
}

function parentOf(domain: string): string | undefined {
  const dot = domain.indexOf('.');
  return dot === -1 ? undefined : domain.slice(dot + 1);
}
