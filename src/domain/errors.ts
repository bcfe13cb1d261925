/**
 * The one error family of Gatehouse. `code` is stable and dotted (`config.invalid`,
 * `idp.state_mismatch`, `session.store_unavailable`) so operators can search for it;
 * `message` never contains a secret. Domain and application errors carry no HTTP
 * status: the Koa error middleware maps codes to statuses in one place.
 */
/**
 * A brand in the global symbol registry: `instanceof` fails when a module is loaded twice
 * (as happens when bootstrap imports an adapter lazily under a TypeScript loader), the
 * brand does not.
 */
const BRAND = Symbol.for('gatehouse.GatehouseError');

export class GatehouseError extends Error {
  readonly [BRAND] = true;
  readonly code: string;
  /** True when `message` may be shown to the person using the application. */
  readonly safe: boolean;
  /** For a refusal that ends by itself (a rate limit): how long until trying again may succeed. */
  readonly retryAfterMs: number | undefined;
  /** For a refusal a new attempt can mend (a step-up not met): the local URL that starts one. */
  readonly retryUrl: string | undefined;

  constructor(
    code: string,
    message: string,
    options: { cause?: unknown; safe?: boolean; retryAfterMs?: number; retryUrl?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatehouseError';
    this.code = code;
    this.safe = options.safe ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.retryUrl = options.retryUrl;
  }
}

export function isGatehouseError(value: unknown): value is GatehouseError {
  return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}
