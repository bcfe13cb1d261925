import { randomUUID } from 'node:crypto';

/** The Redis server the Redis variants run against (`REDIS_URL`); without it they are skipped. */
export const redisUrl = process.env.REDIS_URL ?? '';

/**
 * The two session stores a rule must hold on, as the environment of a Gatehouse that uses
 * them: memory, and Redis under a key prefix of its own (so suites running at once never
 * share a key).
 */
const STORES: ReadonlyArray<[name: string, env: () => Record<string, string>]> = [
  ['memory', () => ({})],
  [
    'Redis',
    () => ({
      ProjectTemplate__Session__Store: 'Redis',
      ProjectTemplate__Session__Redis__Url: redisUrl,
      ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-test:${randomUUID()}:`,
    }),
  ],
];

/** Declares the suite once per store (`title(storeName)`), the Redis one skipped where no Redis is configured. */
export function describeOnEachStore(
  title: (storeName: string) => string,
  body: (this: Mocha.Suite, storeEnv: () => Record<string, string>, storeName: string) => void,
): void {
  for (const [storeName, storeEnv] of STORES) {
    const suite = storeName === 'Redis' && !redisUrl ? describe.skip : describe;
    suite(title(storeName), function () {
      body.call(this, storeEnv, storeName);
    });
  }
}
