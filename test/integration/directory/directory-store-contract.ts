import { ContractStores, type OpenStore } from './contract/contract-stores.js';
import { feedContract } from './contract/feed-contract.js';
import { filtersContract } from './contract/filters-contract.js';
import { groupsContract } from './contract/groups-contract.js';
import { isolationContract } from './contract/isolation-contract.js';
import { pagingContract } from './contract/paging-contract.js';
import { signInContract } from './contract/sign-in-contract.js';
import { subscriptionContract } from './contract/subscription-contract.js';
import { tokensContract } from './contract/tokens-contract.js';
import { usersContract } from './contract/users-contract.js';

export type { OpenedStore, OpenStore } from './contract/contract-stores.js';

/**
 * What every DirectoryStore promises (src/application/ports/directory-store.ts), through the
 * port alone, so that each store runs it unchanged: PostgreSQL, an embedded one. `open` opens
 * another instance on the same data each time (the watch and the concurrent writers need
 * two). Tests share the data: each works in organizations of its own, and reads the feed from
 * where it was when it began, so the suite needs no way to empty a store.
 */
export function directoryStoreContract(name: string, open: OpenStore): void {
  describe(`${name} (directory store contract)`, function () {
    this.timeout(30_000);
    const stores = new ContractStores(open);
    stores.hooks();

    usersContract(stores);
    groupsContract(stores);
    filtersContract(stores);
    pagingContract(stores);
    isolationContract(stores);
    signInContract(stores);
    feedContract(stores);
    tokensContract(stores);
    subscriptionContract(stores);
  });
}
