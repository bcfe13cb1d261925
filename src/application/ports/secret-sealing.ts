/** Where a sealed secret belongs: it opens there only (bound as associated data). */
export interface SealingContext {
  /** The connection's name in lower case (names compare case-insensitively). */
  connection: string;
  /** The secret's key in the connection, e.g. `ClientSecret`. */
  field: string;
}

/**
 * Seals the secrets the administration API stores (`Administration:EncryptionKeys`): a
 * store holds only what `seal` returns, and the registry only what `open` gives back.
 * Every method throws a GatehouseError naming the connection and field, never a value.
 */
export interface SecretSealing {
  seal(secret: string, context: SealingContext): string;
  open(sealed: string, context: SealingContext): string;
  /** Sealed under a key other than the first: `npm run connections:reencrypt` seals it again. */
  needsResealing(sealed: string): boolean;
}

export const SecretSealingToken = Symbol('SecretSealing');
