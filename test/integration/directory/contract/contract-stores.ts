import { randomUUID } from 'node:crypto';
import type { CreateOutcome, DirectoryStore, WriteOutcome } from '../../../../src/application/ports/directory-store.js';
import type { UserAttributes } from '../../../../src/domain/directory/directory-resources.js';

/** A store opened for the contract, and how to close it. */
export interface OpenedStore {
  store: DirectoryStore;
  close(): Promise<void>;
}

/** Opens another instance on the same data each time it is called (another process, in production). */
export type OpenStore = () => Promise<OpenedStore>;

/**
 * The stores of one contract run: `store` opened once for the suite, and `another()` for a
 * test that needs a second instance, closed after that test. Tests share the data, so each
 * works in organizations of its own (`organization()`), and reads the feed from where it was
 * when the test began.
 */
export class ContractStores {
  #main: OpenedStore | undefined;
  readonly #others: OpenedStore[] = [];

  constructor(private readonly open: OpenStore) {}

  get store(): DirectoryStore {
    if (!this.#main) throw new Error('the contract store is not open');
    return this.#main.store;
  }

  async another(): Promise<DirectoryStore> {
    const opened = await this.open();
    this.#others.push(opened);
    return opened.store;
  }

  hooks(): void {
    before(async () => {
      this.#main = await this.open();
    });
    afterEach(async () => {
      await Promise.all(this.#others.splice(0).map((opened) => opened.close()));
    });
    after(async () => {
      await this.#main?.close();
    });
  }
}

/** A fresh organization: nothing of another test is in it. */
export function organization(): string {
  return `org-${randomUUID()}`;
}

export const T0 = Date.UTC(2026, 10, 1, 12, 0, 0, 123);
export const MINUTE = 60_000;

export function userAttributes(userName: string, more: Partial<UserAttributes> = {}): UserAttributes {
  return { userName, active: true, ...more };
}

/** The resource a write wrote, or the test fails naming what came instead. */
export function written<T>(outcome: CreateOutcome<T> | WriteOutcome<T>): T {
  if (outcome.kind !== 'written') throw new Error(`expected a write, got ${JSON.stringify(outcome)}`);
  return outcome.resource;
}

/** A well-formed id no store gave: a UUID in lower case, as ids are. */
export function unknownId(): string {
  return randomUUID();
}
