import type { Clock } from '../application/ports/clock.js';
import type { IdentityProvider } from '../application/ports/identity-provider.js';
import type { Logger } from '../application/ports/logger.js';
import type { SessionStore } from '../application/ports/session-store.js';
import { isGatehouseError } from '../domain/errors.js';
import { registeredProviders } from '../domain/settings/check-settings.js';
import { error, keyOf, type SettingsProblem } from '../domain/settings/problem.js';
import type {
  Environment,
  ProjectTemplateSettings,
  ProviderKey,
  ProvidersSettings,
} from '../domain/settings/settings.js';
import type { SocialProviderOptions } from '../adapters/oauth2/social-provider-options.js';
import { installSamlSchemaValidation } from './saml-schema-validation.js';

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
  /** The project folder: files an adapter reads at run time (the SAML schemas) are resolved from it. */
  rootDir: string;
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
  Social1: async (context) => {
    const options = socialOptions(context, 'Social1');
    if (!options) return undefined;
    const { MicrosoftIdentityProvider } = await import('../adapters/microsoft/microsoft-identity-provider.js');
    return new MicrosoftIdentityProvider(options);
  },
  Social2: async (context) => {
    const options = socialOptions(context, 'Social2');
    if (!options) return undefined;
    const { AmazonIdentityProvider } = await import('../adapters/amazon/amazon-identity-provider.js');
    return new AmazonIdentityProvider(options);
  },
  Social3: async (context) => {
    const options = socialOptions(context, 'Social3');
    if (!options) return undefined;
    const { GitHubIdentityProvider } = await import('../adapters/github/github-identity-provider.js');
    return new GitHubIdentityProvider(options);
  },
  Saml2: async ({ settings, publicOrigin, logger, clock, sessionStore, rootDir }) => {
    const saml = settings.Authentication.Providers.Saml2;
    if (
      !URL.canParse(saml.MetadataUrl) ||
      !URL.canParse(saml.EntityId) ||
      !URL.canParse(saml.ModulePath, publicOrigin)
    ) {
      return undefined;
    }
    await installSamlSchemaValidation(rootDir);
    const { SamlIdentityProvider } = await import('../adapters/saml/saml-identity-provider.js');
    return new SamlIdentityProvider({
      settings: saml,
      acsUrl: new URL(saml.ModulePath, publicOrigin).href,
      timeoutMs: settings.Authentication.HttpTimeoutSeconds * 1000,
      sessionStore,
      logger,
      clock,
    });
  },
};

/**
 * What a social provider's adapter is built from, or undefined when a value the startup
 * rules report (a missing client ID or secret, a malformed callback path or endpoint)
 * makes it impossible.
 */
function socialOptions<K extends 'Social1' | 'Social2' | 'Social3'>(
  { settings, publicOrigin, logger, clock }: ProviderContext,
  key: K,
): SocialProviderOptions<ProvidersSettings[K]> | undefined {
  const social = settings.Authentication.Providers[key];
  const overrides = [social.AuthorizationEndpoint, social.TokenEndpoint, social.UserInformationEndpoint];
  if ('UserEmailsEndpoint' in social) overrides.push(social.UserEmailsEndpoint);
  if (
    social.ClientId.trim() === '' ||
    social.ClientSecret.trim() === '' ||
    !URL.canParse(social.CallbackPath, publicOrigin) ||
    !overrides.every((endpoint) => endpoint.trim() === '' || URL.canParse(endpoint.trim()))
  ) {
    return undefined;
  }
  return {
    key,
    settings: social,
    redirectUri: new URL(social.CallbackPath, publicOrigin).href,
    timeoutMs: settings.Authentication.HttpTimeoutSeconds * 1000,
    logger,
    clock,
  };
}

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
