/**
 * The known key closest to a mistyped one (`Provider` -> `Providers`, `Enable` -> `Enabled`),
 * or undefined when nothing is close enough to be a plausible typo.
 */
export function nearestKey(unknown: string, known: readonly string[]): string | undefined {
  const target = unknown.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(target, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const tolerance = Math.max(2, Math.floor(target.length / 3));
  return bestDistance <= tolerance ? best : undefined;
}

/** Levenshtein distance, two rows at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
