/**
 * Which connection holds an e-mail domain: exact domains in one map, wildcards
 * (`*.example.com`) in another, so a lookup is a map read per label of the domain (a
 * handful), whatever the number of connections.
 */
export class DomainOwners<T> {
  readonly #exact = new Map<string, T>();
  readonly #wildcard = new Map<string, T>();

  /** Claims a normalized pattern; the owner already holding it, if any (nothing is changed then). */
  claim(pattern: string, owner: T): T | undefined {
    const [map, key] = pattern.startsWith('*.') ? [this.#wildcard, pattern.slice(2)] : [this.#exact, pattern];
    const holder = map.get(key);
    if (holder !== undefined) return holder;
    map.set(key, owner);
    return undefined;
  }

  release(pattern: string): void {
    if (pattern.startsWith('*.')) this.#wildcard.delete(pattern.slice(2));
    else this.#exact.delete(pattern);
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
   * The owner of any pattern overlapping `pattern` that `counts` (by default any): for a
   * domain, its exact entry or a wildcard above it; for a wildcard `*.base`, a wildcard at
   * `base` or above it, or any entry below `base` (a scan: this is asked when a connection
   * is added, never per request). A connection replacing itself passes `counts` to look
   * past its own earlier patterns: the first overlap found may be its own while another
   * connection's lies behind it.
   */
  overlapping(pattern: string, counts: (owner: T) => boolean = () => true): T | undefined {
    for (const owner of this.#overlappingOwners(pattern)) if (counts(owner)) return owner;
    return undefined;
  }

  *#overlappingOwners(pattern: string): Generator<T> {
    const wildcard = pattern.startsWith('*.');
    const base = wildcard ? pattern.slice(2) : pattern;
    if (!wildcard) {
      const exact = this.#exact.get(base);
      if (exact !== undefined) yield exact;
    }
    // A domain is covered by wildcards strictly above it; `*.base` overlaps one at base too.
    for (let suffix = wildcard ? base : parentOf(base); suffix !== undefined; suffix = parentOf(suffix)) {
      const owner = this.#wildcard.get(suffix);
      if (owner !== undefined) yield owner;
    }
    if (!wildcard) return;
    for (const map of [this.#exact, this.#wildcard]) {
      for (const [key, owner] of map) if (key.endsWith(`.${base}`)) yield owner;
    }
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
