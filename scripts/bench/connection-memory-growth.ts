/** Heap and external memory after three full collections (the child runs with --expose-gc). */
export interface SettledMemory {
  heapUsed: number;
  external: number;
}

export function settledMemory(): SettledMemory {
  for (let i = 0; i < 3; i++) gc!();
  const { heapUsed, external } = process.memoryUsage();
  return { heapUsed, external };
}

/** Prints what `count` idle connections grew the memory by, per connection, as the bench's parent reads it. */
export function printGrowth(count: number, before: SettledMemory, after: SettledMemory): void {
  const grown = after.heapUsed + after.external - (before.heapUsed + before.external);
  process.stdout.write(
    `${JSON.stringify({
      connections: count,
      bytesPerConnection: Math.round(grown / count),
      heapUsedDeltaBytes: after.heapUsed - before.heapUsed,
      externalDeltaBytes: after.external - before.external,
    })}\n`,
  );
}
