import { ClaimTypes } from '../../domain/claims/claim-types.js';
import { provider } from '../provider-record.js';
import { clientAuthenticationRules } from './client-authentication-rules.js';
import { CLIENT_AUTHENTICATION_METHODS, type OpenIdConnectSettings } from './open-id-connect-settings.js';

const { Subject, Name, Email, Role, Group, Permission } = ClaimTypes;

/** OpenIdConnect: any OpenID Connect provider, found by discovery at its Authority. */
export const openIdConnect = provider<OpenIdConnectSettings>({
  key: 'OpenIdConnect',
  callbackKey: 'CallbackPath',
  // A connection's paths, under its own base (docs/connections.md).
  instancePaths: (base) => ({
    CallbackPath: `${base}/signin-oidc`,
    BackchannelLogoutPath: `${base}/backchannel-logout`,
    FrontchannelLogoutPath: `${base}/frontchannel-logout`,
  }),
  declaredIssuer: (settings) => ({ key: 'Authority', value: settings.Authority }),
  ownedPaths: (settings): Record<string, string> => ({
    ...(settings.BackchannelLogoutPath === '' ? {} : { BackchannelLogoutPath: settings.BackchannelLogoutPath }),
    ...(settings.FrontchannelLogoutPath === '' ? {} : { FrontchannelLogoutPath: settings.FrontchannelLogoutPath }),
  }),
  defaults: {
    Enabled: false,
    Scheme: 'OpenIdConnect',
    DisplayName: 'OpenID Connect',
    Authority: '<authority_url>',
    ClientId: '',
    ClientSecret: '',
    ClientAuthentication: 'client_secret_basic',
    ClientCertificate: '',
    ClientKey: '',
    ClientAssertionAudience: 'issuer',
    UsePushedAuthorization: true,
    CallbackPath: '/signin-oidc',
    ResponseType: 'code',
    ResponseMode: 'query',
    SaveTokens: true,
    Scopes: ['openid', 'profile', 'email'],
    SignOutAtProvider: true,
    BackchannelLogoutPath: '/backchannel-logout-oidc',
    BackchannelLogoutAcceptJwtTyp: false,
    FrontchannelLogoutPath: '/frontchannel-logout-oidc',
  },
  kinds: {
    Enabled: 'boolean',
    Scheme: 'string',
    DisplayName: 'string',
    Authority: 'string',
    ClientId: 'string',
    ClientSecret: 'secret',
    ClientAuthentication: CLIENT_AUTHENTICATION_METHODS,
    ClientCertificate: 'string',
    ClientKey: 'secret',
    ClientAssertionAudience: ['issuer', 'token_endpoint'],
    UsePushedAuthorization: 'boolean',
    CallbackPath: 'string',
    ResponseType: 'string',
    ResponseMode: ['query', 'form_post'],
    SaveTokens: 'boolean',
    Scopes: 'strings',
    SignOutAtProvider: 'boolean',
    BackchannelLogoutPath: 'string',
    BackchannelLogoutAcceptJwtTyp: 'boolean',
    FrontchannelLogoutPath: 'string',
  },
  // OIDC Core 5.1 standard claims; `roles`/`groups`/`permissions` are common IdP extensions.
  claimMappings: [
    { source: 'sub', target: Subject },
    { source: 'name', target: Name },
    { source: 'preferred_username', target: Name, fallback: true },
    { source: 'email', target: Email },
    { source: 'roles', target: Role },
    { source: 'role', target: Role },
    { source: 'groups', target: Group },
    { source: 'permissions', target: Permission },
  ],
  rules: (settings, check) => [
    ...check.httpsUrl('Authority', settings.Authority),
    ...check.required('ClientId', settings.ClientId),
    ...clientAuthenticationRules(settings, check),
    ...(settings.ResponseType === 'code'
      ? []
      : check.problem(
          'ResponseType',
          'must be "code": only the authorization-code flow with PKCE is offered (implicit and hybrid flows are not)',
        )),
    ...(settings.Scopes.includes('openid') ? [] : check.problem('Scopes', 'must include "openid"')),
  ],
  async createAdapter(settings, context) {
    const { OidcIdentityProvider } = await import('./oidc-identity-provider.js');
    return new OidcIdentityProvider(context.info, settings, context);
  },
});
