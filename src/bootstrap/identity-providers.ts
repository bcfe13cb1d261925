import type { Clock } from '../application/ports/clock.js';
import type { IdentityProvider } from '../application/ports/identity-provider.js';
import type { Logger } from '../application/ports/logger.js';
import type { SessionStore } from '../application/ports/session-store.js';
import { isGatehouseError } from '../domain/errors.js';
import { registeredProviders } from '../domain/settings/check-settings.js';
import { error, keyOf, type SettingsProblem } from '../domain/settings/problem.js';
import type { Environment, ProjectTemplateSettings, ProviderKey } from '../domain/settings/settings.js';

/** What every identity adapter may need from the composition root. */
export interface ProviderContext {
  settings: ProjectTemplateSettings;
  /** Where the application is reached: redirect URIs and entity URLs are built on it, never on the Host header. */
  publicOrigin: string;
  environment: Environment;
  logger: Logger;
  clock: Clock;
  /** The signed-in store, shared by every instance: for records that must hold across instances (a SAML replay cache). */
  sessionStore: SessionStore;
}

/**
 * Builds one provider's adapter, or undefined when a value the startup rules will report
 * (a placeholder URL ...) makes it impossible: composing goes on, so every problem is
 * reported at once. An adapter's library is imported only when the provider is enabled:
 * openid-client alone adds about a tenth of a second to a cold start that does not use it.
 */
type ProviderFactory = (context: ProviderContext) => Promise<IdentityProvider | undefined>;

/**
 * The one table of identity adapters: a provider is available in this build when it has a
 * row, and constructed from its row when it is enabled. Constructing contacts nobody.
 */
const PROVIDER_ADAPTERS: Partial<Record<ProviderKey, ProviderFactory>> = {
  OpenIdConnect: async ({ settings, publicOrigin, logger, clock }) => {
    const oidc = settings.Authentication.Providers.OpenIdConnect;
    if (!URL.canParse(oidc.Authority) || !URL.canParse(oidc.CallbackPath, publicOrigin)) return undefined;
    const { OidcIdentityProvider } = await import('../adapters/oidc/oidc-identity-provider.js');
    return new OidcIdentityProvider({
      key: 'OpenIdConnect',
      settings: oidc,
      redirectUri: new URL(oidc.CallbackPath, publicOrigin).href,
      postLogoutRedirectUri: new URL('/', publicOrigin).href,
      timeoutMs: settings.Authentication.HttpTimeoutSeconds * 1000,
      // The startup rules accept http only for a loopback authority outside production.
      allowInsecureHttp: new URL(oidc.Authority).protocol === 'http:',
      logger,
      clock,
    });
  },
};

/** Providers this build ships an identity adapter for. */
export const AVAILABLE_PROVIDERS: readonly ProviderKey[] = Object.keys(PROVIDER_ADAPTERS) as ProviderKey[];

/** One identity adapter per registered provider; what an adapter refuses at construction becomes a startup problem. */
export async function createIdentityProviders(
  context: ProviderContext,
  problems: SettingsProblem[],
): Promise<IdentityProvider[]> {
  const providers: IdentityProvider[] = [];
  for (const key of registeredProviders(context.settings)) {
    const create = PROVIDER_ADAPTERS[key];
    if (!create) continue; // the startup rules report a provider this build does not ship
    try {
      const provider = await create(context);
      if (provider) providers.push(provider);
    } catch (thrown) {
      problems.push(refused(keyOf('Authentication', 'Providers', key, 'Enabled'), thrown));
    }
  }
  return providers;
}

/** An adapter's refusal as a startup problem. The adapters' own messages never quote a value (a URL may carry a password). */
export function refused(key: string, thrown: unknown): SettingsProblem {
  if (!isGatehouseError(thrown)) throw thrown;
  return error(key, `was refused: ${thrown.message}`);
}
