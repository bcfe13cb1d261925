import { MemorySessionStore } from '../../../../src/adapters/session/memory-session-store.js';
import { FixedClock } from '../../../support/fixed-clock.js';

/**
 * The two stores a portal rule about time must hold on: the memory store on the portal's
 * own clock (a record goes when its time to live ends), and one whose records outlive
 * their time to live (another instance's clock behind, a Redis expiry not yet run): there
 * the portal's own check of the record's times is all that ends it.
 */
export const STORE_CLOCKS: ReadonlyArray<{
  name: string;
  store: (clock: FixedClock) => MemorySessionStore;
}> = [
  { name: 'a store that forgets on time', store: (clock) => new MemorySessionStore({ maxEntries: 1000, clock }) },
  {
    name: 'a store whose records outlive their time to live',
    store: () => new MemorySessionStore({ maxEntries: 1000, clock: new FixedClock() }),
  },
];
