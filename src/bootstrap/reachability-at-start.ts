import type { IdentityProvider } from '../application/ports/identity-provider.js';
import type { Logger } from '../application/ports/logger.js';
import type { Environment } from '../domain/settings/settings.js';

/**
 * In development, one attempt to reach each configured provider right after the start, so
 * that a wrong but well-formed address (a typo in the port of `Authority`) is said at once,
 * naming the host, the cause and the key, rather than at the first sign-in. It runs beside
 * the start and never fails it; production starts do not wait on or try it (readiness
 * reports providers there).
 */
export async function reportUnreachableProviders(
  environment: Environment,
  providers: readonly IdentityProvider[],
  logger: Logger,
): Promise<void> {
  if (environment !== 'development') return;
  await Promise.all(
    providers.map(async (provider) => {
      const problem = await provider.checkReachable?.().catch(() => undefined);
      if (problem) logger.warn({ provider: provider.info.key }, problem);
    }),
  );
}
