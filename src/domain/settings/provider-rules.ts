import { error, keyOf, type SettingsProblem } from './problem.js';
import type { Environment, ProjectTemplateSettings, ProviderKey } from './settings.js';
import { httpsRequirementMessage, isLocalPath, parseHttpUrl } from './url-rules.js';

/**
 * Required values of one enabled provider. Only registered providers reach here: a
 * disabled provider may keep empty or placeholder values.
 */
export function checkProvider(
  settings: ProjectTemplateSettings,
  provider: ProviderKey,
  environment: Environment,
): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  const providers = settings.Authentication.Providers;
  const key = (name: string) => keyOf('Authentication', 'Providers', provider, name);
  const required = (name: string, value: string) => {
    if (value.trim() === '') problems.push(error(key(name), `is required when the ${provider} provider is enabled`));
  };
  const callbackPath = (name: string, value: string) => {
    if (value.trim() === '') required(name, value);
    else if (!isLocalPath(value))
      problems.push(error(key(name), 'must be a path starting with a single "/" (no scheme, host, query or spaces)'));
  };

  const common = providers[provider];
  if (!/^[A-Za-z][A-Za-z0-9._-]*$/.test(common.Scheme)) {
    problems.push(error(key('Scheme'), 'must be a non-empty name of letters, digits, ".", "_" or "-"'));
  }
  // A social provider without a DisplayName shows its vendor's name.
  if (!isSocialProvider(provider)) required('DisplayName', common.DisplayName);

  switch (provider) {
    case 'OpenIdConnect': {
      const oidc = providers.OpenIdConnect;
      const authorityProblem = httpsRequirementMessage(oidc.Authority, environment);
      if (oidc.Authority.trim() === '') required('Authority', oidc.Authority);
      else if (authorityProblem) problems.push(error(key('Authority'), authorityProblem));
      required('ClientId', oidc.ClientId);
      required('ClientSecret', oidc.ClientSecret);
      callbackPath('CallbackPath', oidc.CallbackPath);
      if (oidc.ResponseType !== 'code') {
        problems.push(
          error(
            key('ResponseType'),
            'must be "code": only the authorization-code flow with PKCE is offered (implicit and hybrid flows are not)',
          ),
        );
      }
      if (!oidc.Scopes.includes('openid')) problems.push(error(key('Scopes'), 'must include "openid"'));
      break;
    }
    case 'Saml2': {
      const saml = providers.Saml2;
      if (saml.EntityId.trim() === '') required('EntityId', saml.EntityId);
      else if (!parseHttpUrl(saml.EntityId)) problems.push(error(key('EntityId'), 'must be an absolute URL'));
      if (saml.LoadMetadata) {
        const metadataProblem = httpsRequirementMessage(saml.MetadataUrl, environment);
        if (saml.MetadataUrl.trim() === '') required('MetadataUrl', saml.MetadataUrl);
        else if (metadataProblem) problems.push(error(key('MetadataUrl'), metadataProblem));
      } else {
        problems.push(
          error(key('LoadMetadata'), 'must be true: the identity provider metadata is read from MetadataUrl'),
        );
      }
      callbackPath('ModulePath', saml.ModulePath);
      break;
    }
    case 'Social1':
    case 'Social2':
    case 'Social3': {
      const social = providers[provider];
      required('ClientId', social.ClientId);
      required('ClientSecret', social.ClientSecret);
      callbackPath('CallbackPath', social.CallbackPath);
      const overrides: Array<[string, string]> = [
        ['AuthorizationEndpoint', social.AuthorizationEndpoint],
        ['TokenEndpoint', social.TokenEndpoint],
        ['UserInformationEndpoint', social.UserInformationEndpoint],
      ];
      if (provider === 'Social3') overrides.push(['UserEmailsEndpoint', providers.Social3.UserEmailsEndpoint]);
      for (const [name, value] of overrides) {
        // Empty means the vendor's production endpoint.
        const problem = value.trim() === '' ? undefined : httpsRequirementMessage(value, environment);
        if (problem) problems.push(error(key(name), problem));
      }
      if (provider === 'Social1' && social.Scopes.includes('openid')) {
        // Microsoft then issues an ID token whose issuer names the user's tenant, which no
        // fixed configuration can check: the user is read from Microsoft Graph instead.
        problems.push(
          error(
            key('Scopes'),
            'must not include "openid": Social1 reads the user from Microsoft Graph and takes no ID token (for OpenID Connect with your own tenant, use the OpenIdConnect provider)',
          ),
        );
      }
      break;
    }
  }
  return problems;
}

export function isSocialProvider(provider: ProviderKey): provider is 'Social1' | 'Social2' | 'Social3' {
  return provider === 'Social1' || provider === 'Social2' || provider === 'Social3';
}

/** The path a provider's protocol messages arrive at. */
export function callbackPathOf(
  settings: ProjectTemplateSettings,
  provider: ProviderKey,
): { name: string; path: string } {
  const providers = settings.Authentication.Providers;
  return provider === 'Saml2'
    ? { name: 'ModulePath', path: providers.Saml2.ModulePath }
    : { name: 'CallbackPath', path: providers[provider].CallbackPath };
}
