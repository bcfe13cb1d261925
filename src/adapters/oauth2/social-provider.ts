import type { ClaimMapping } from '../../domain/claims/claim-mappings.js';
import type { ProviderChecks, SettingKind } from '../../domain/providers/provider-definition.js';
import type { SettingsProblem } from '../../domain/settings/problem.js';
import { provider, type ProviderRecord } from '../provider-record.js';
import type { SocialSettings } from './social-settings.js';
import type { SocialVendor } from './social-vendor.js';

export interface SocialProviderDeclaration<Extra extends string> {
  key: string;
  /** Listed under this name while DisplayName is empty. */
  vendorName: string;
  /** The starter CallbackPath and Scopes. */
  callbackPath: string;
  scopes: string[];
  /** Endpoint overrides beyond the three every vendor has (GitHub's `UserEmailsEndpoint`). */
  extraEndpoints?: readonly Extra[];
  claimMappings: readonly ClaimMapping[];
  /** The vendor's own startup rules, beyond the ones every social provider has. */
  rules?(settings: SocialSettings<Extra>, check: ProviderChecks): SettingsProblem[];
  /** The vendor's sign-in, imported when the provider is enabled. */
  vendor(): Promise<SocialVendor>;
}

const ENDPOINTS = ['AuthorizationEndpoint', 'TokenEndpoint', 'UserInformationEndpoint'] as const;

/** A social provider's record: its vendor's endpoints, scopes, user reader and quirks, on the shared OAuth 2.0 adapter. */
export function socialProvider<Extra extends string = never>(
  declaration: SocialProviderDeclaration<Extra>,
): ProviderRecord<SocialSettings<Extra>> {
  const extra = declaration.extraEndpoints ?? [];
  const endpoints = [...ENDPOINTS, ...extra];
  return provider<SocialSettings<Extra>>({
    key: declaration.key,
    vendorName: declaration.vendorName,
    callbackKey: 'CallbackPath',
    defaults: {
      Enabled: false,
      Scheme: declaration.key,
      DisplayName: '',
      ClientId: '',
      ClientSecret: '',
      CallbackPath: declaration.callbackPath,
      Scopes: declaration.scopes,
      SaveTokens: false,
      ...Object.fromEntries(endpoints.map((name) => [name, ''])),
    } as SocialSettings<Extra>,
    kinds: {
      Enabled: 'boolean',
      Scheme: 'string',
      DisplayName: 'string',
      ClientId: 'string',
      ClientSecret: 'secret',
      CallbackPath: 'string',
      Scopes: 'strings',
      SaveTokens: 'boolean',
      ...Object.fromEntries(endpoints.map((name) => [name, 'string' as SettingKind])),
    } as ProviderRecord<SocialSettings<Extra>>['kinds'],
    claimMappings: declaration.claimMappings,
    rules(settings, check) {
      const section = settings as unknown as Readonly<Record<string, string>>;
      return [
        ...check.required('ClientId', settings.ClientId),
        ...check.required('ClientSecret', settings.ClientSecret),
        // Empty means the vendor's production endpoint.
        ...endpoints.flatMap((name) => check.optionalHttpsUrl(name, section[name] ?? '')),
        ...(declaration.rules?.(settings, check) ?? []),
      ];
    },
    async createAdapter(settings, context) {
      const [{ SocialIdentityProvider }, vendor] = await Promise.all([
        import('./social-identity-provider.js'),
        declaration.vendor(),
      ]);
      return new SocialIdentityProvider(context.info, settings, vendor, context);
    },
  });
}
