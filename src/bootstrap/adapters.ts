import type { Clock } from '../application/ports/clock.js';
import type { IdentityProvider } from '../application/ports/identity-provider.js';
import type { Logger } from '../application/ports/logger.js';
import type { SessionStore } from '../application/ports/session-store.js';
import { MemorySessionStore } from '../adapters/session/memory-session-store.js';
import { isGatehouseError } from '../domain/errors.js';
import { registeredProviders } from '../domain/settings/check-settings.js';
import { error, keyOf, type SettingsProblem } from '../domain/settings/problem.js';
import type { Environment, ProjectTemplateSettings, ProviderKey } from '../domain/settings/settings.js';

/** Providers this build ships an identity adapter for. */
export const AVAILABLE_PROVIDERS: readonly ProviderKey[] = ['OpenIdConnect'];

export interface StoreAdapter {
  store: SessionStore & { ping(): Promise<boolean>; close(): Promise<void> };
  /** Opens connections; never throws when the backend is down (readiness reports it). */
  connect(): Promise<void>;
}

/** What an adapter refused at construction, as a startup problem (reported with all the others). */
export interface AdapterProblems {
  problems: SettingsProblem[];
}

function refused(key: string, thrown: unknown): SettingsProblem {
  // The adapters' own messages never quote the value (a URL may carry a password).
  if (!isGatehouseError(thrown)) throw thrown;
  return error(key, `was refused: ${thrown.message}`);
}

/**
 * Adapters whose library is heavy are imported only when configured: ioredis and
 * openid-client add about 200 ms to a cold start that does not use them (npm run bench).
 */
export async function createSessionStore(
  settings: ProjectTemplateSettings,
  logger: Logger,
  clock: Clock,
  found: AdapterProblems,
): Promise<StoreAdapter> {
  const session = settings.Session;
  if (session.Store === 'Redis') {
    const { RedisSessionStore } = await import('../adapters/session/redis-session-store.js');
    try {
      const store = new RedisSessionStore({
        url: session.Redis.Url,
        keyPrefix: session.Redis.KeyPrefix,
        commandTimeoutMs: session.Redis.CommandTimeoutMs,
        logger,
      });
      return { store, connect: () => store.connect() };
    } catch (thrown) {
      // Keep composing (with a store that is never used) so that every problem is reported at once.
      found.problems.push(refused(keyOf('Session', 'Redis', 'Url'), thrown));
    }
  }
  return {
    store: new MemorySessionStore({
      maxEntries: Number.isInteger(session.MaxSessions) && session.MaxSessions >= 1 ? session.MaxSessions : 1,
      clock,
    }),
    connect: async () => undefined,
  };
}

/** One identity adapter per registered provider; constructing them contacts nobody. */
export async function createIdentityProviders(
  settings: ProjectTemplateSettings,
  context: { publicOrigin: string; environment: Environment; logger: Logger; clock: Clock },
  found: AdapterProblems,
): Promise<IdentityProvider[]> {
  if (registeredProviders(settings).length === 0) return [];
  const { OidcIdentityProvider } = await import('../adapters/oidc/oidc-identity-provider.js');
  return registeredProviders(settings).flatMap((key): IdentityProvider[] => {
    if (key !== 'OpenIdConnect') return [];
    const oidc = settings.Authentication.Providers.OpenIdConnect;
    // Values the startup rules will report (a placeholder Authority ...) must not stop composing.
    if (!URL.canParse(oidc.Authority) || !URL.canParse(oidc.CallbackPath, context.publicOrigin)) return [];
    try {
      return [
        new OidcIdentityProvider({
          key,
          settings: oidc,
          redirectUri: new URL(oidc.CallbackPath, context.publicOrigin).href,
          postLogoutRedirectUri: new URL('/', context.publicOrigin).href,
          timeoutMs: settings.Authentication.HttpTimeoutSeconds * 1000,
          // The startup rules accept http only for a loopback authority outside production.
          allowInsecureHttp: new URL(oidc.Authority).protocol === 'http:',
          logger: context.logger,
          clock: context.clock,
        }),
      ];
    } catch (thrown) {
      found.problems.push(refused(keyOf('Authentication', 'Providers', key, 'Enabled'), thrown));
      return [];
    }
  });
}
