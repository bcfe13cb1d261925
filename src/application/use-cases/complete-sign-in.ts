import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../domain/claims/principal.js';
import { normalizeClaims } from '../../domain/claims/normalize-claims.js';
import { GatehouseError } from '../../domain/errors.js';
import { providerKeys, type ProjectTemplateSettings, type ProviderKey } from '../../domain/settings/settings.js';
import { FLOW_LIFETIME_MS, flowKey } from '../flow-key.js';
import { ClockToken, type Clock } from '../ports/clock.js';
import { IdentityProvidersToken, type IdentityProvider, type SessionTokens } from '../ports/identity-provider.js';
import { SessionStoreToken, type StoredRecord, type SessionStore } from '../ports/session-store.js';
import { SettingsToken } from '../tokens.js';

export interface CompleteSignInInput {
  /** The provider whose callback path the browser arrived at. */
  provider: ProviderKey;
  /** The callback URL, rebuilt from the configured public origin. */
  callbackUrl: URL;
  sessionBinding: string;
  pendingFlows: readonly string[];
}

export interface CompleteSignInResult {
  principal: Principal;
  tokens?: SessionTokens;
  returnUrl: string;
  pendingFlows: string[];
}

const refuse = (code: string, message: string) => new GatehouseError(code, message, { safe: true });

/**
 * Completes an external sign-in. The flow record is found by the callback's `state`,
 * taken (consumed) atomically, and checked, all *before* the adapter talks to the token
 * endpoint: openid-client fails open when a check value is undefined, so a callback
 * without its record must never reach it. Each refusal has its own code.
 */
@injectable()
export class CompleteSignIn {
  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProvider[],
    @inject(SessionStoreToken) private readonly store: SessionStore,
    @inject(ClockToken) private readonly clock: Clock,
    @inject(SettingsToken) private readonly settings: ProjectTemplateSettings,
  ) {}

  async execute(input: CompleteSignInInput): Promise<CompleteSignInResult> {
    const states = input.callbackUrl.searchParams.getAll('state');
    if (states.length > 1)
      throw refuse('request.repeated_parameter', 'The query parameter "state" must appear at most once.');
    const state = states[0];
    const key = state ? flowKey(state) : undefined;
    const pendingFlows = input.pendingFlows.filter((k) => k !== key);
    // Only a flow this browser started is taken: a callback replayed in another browser
    // must neither sign it in nor spend the rightful browser's flow.
    if (!key || !input.pendingFlows.includes(key)) {
      if (input.pendingFlows.length === 0) {
        throw refuse(
          'idp.flow_missing',
          'No sign-in is in progress in this browser: it may have been completed already, or cookies are blocked.',
        );
      }
      throw refuse('idp.state_mismatch', 'The sign-in response does not match the sign-in started in this browser.');
    }
    const record = await this.store.take(key);
    const flow = record ? readFlow(record) : undefined;
    if (!flow) throw refuse('idp.flow_expired', 'This sign-in took too long. Please start again.');
    if (input.sessionBinding === '' || flow.binding !== input.sessionBinding) {
      throw refuse('idp.state_mismatch', 'The sign-in response does not match the sign-in started in this browser.');
    }
    if (this.clock.now() - flow.createdAt > FLOW_LIFETIME_MS)
      throw refuse('idp.flow_expired', 'This sign-in took too long. Please start again.');
    if (flow.provider !== input.provider) {
      throw refuse(
        'idp.flow_wrong_provider',
        'The sign-in response arrived for a different provider than the one the sign-in started with.',
      );
    }
    const providerError = input.callbackUrl.searchParams.get('error');
    if (providerError !== null) {
      const code =
        /^[\x20-\x7e]{1,64}$/.test(providerError) && !/[<>"&]/.test(providerError) ? providerError : 'unknown';
      throw refuse('idp.provider_error', `The identity provider did not sign you in (${code}).`);
    }

    const provider = this.providers.find((candidate) => candidate.info.key === flow.provider);
    if (!provider) throw refuse('idp.flow_wrong_provider', 'The provider of this sign-in is no longer registered.');
    const identity = await provider.completeCallback(input.callbackUrl, flow.secrets);

    const transformation = this.settings.Authentication.ClaimsTransformation;
    const principal = normalizeClaims({
      provider: flow.provider,
      scheme: provider.info.scheme,
      claims: identity.claims,
      extraMappings: transformation.Mappings[flow.provider],
      removeOriginalClaims: transformation.RemoveOriginalClaims,
    });
    const saveTokens =
      flow.provider === 'OpenIdConnect' ? this.settings.Authentication.Providers.OpenIdConnect.SaveTokens : false;
    return { principal, tokens: saveTokens ? identity.tokens : undefined, returnUrl: flow.returnUrl, pendingFlows };
  }
}

interface Flow {
  provider: ProviderKey;
  returnUrl: string;
  createdAt: number;
  binding: string;
  secrets: Record<string, string>;
}

/** The stored record, narrowed field by field: a store is outside the process. */
function readFlow(record: StoredRecord): Flow | undefined {
  const { returnUrl, createdAt, binding, secrets } = record;
  const provider = providerKeys.find((key) => key === record.provider);
  if (
    provider === undefined ||
    typeof returnUrl !== 'string' ||
    typeof createdAt !== 'number' ||
    typeof binding !== 'string'
  )
    return undefined;
  if (typeof secrets !== 'object' || secrets === null) return undefined;
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(secrets)) if (typeof value === 'string') strings[name] = value;
  return { provider, returnUrl, createdAt, binding, secrets: strings };
}
