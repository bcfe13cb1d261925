import type { Clock } from '../application/ports/clock.js';
import type { IdentityProvider, IdentityProviderInfo } from '../application/ports/identity-provider.js';
import type { Logger } from '../application/ports/logger.js';
import type { SessionStore } from '../application/ports/session-store.js';
import type { OutboundRequests } from './outbound-requests.js';
import { callbackPathOf, displayNameOf, type ProviderDefinition } from '../domain/providers/provider-definition.js';
import type { Environment, ProviderCommonSettings } from '../domain/settings/settings.js';

/** What the composition root gives every identity adapter, besides its own validated settings. */
export interface AdapterContext {
  /** How the provider is listed and routed: its key, scheme, display name and callback path. */
  info: IdentityProviderInfo;
  /** Where the application is reached: redirect URIs and entity URLs are built on it, never on the Host header. */
  publicOrigin: string;
  environment: Environment;
  /** Time-out of every outbound call to the provider (`Authentication:HttpTimeoutSeconds`). */
  timeoutMs: number;
  logger: Logger;
  clock: Clock;
  /** The signed-in store, shared by every instance: for records that must hold across instances (a logout request outstanding). */
  sessionStore: SessionStore;
  /**
   * The store of records used once (a SAML assertion ID, a logout token's `jti`), shared by
   * every instance, which never evicts one before it expires: full, it refuses a new one
   * (`session.store_full`).
   */
  replayRecords: SessionStore;
  /** The project folder: files an adapter reads at run time (the SAML schemas) are resolved from it. */
  rootDir: string;
  /** Watches the adapter's outbound requests (telemetry: a span, a duration, the trace context); absent when off. */
  outbound?: OutboundRequests;
  /**
   * The fetch of the adapter's own requests to its provider: the address-guarded one
   * (outbound/address-guarded-fetch.ts) for a connection an organization declared itself;
   * the global fetch when absent (the operator's providers and connections).
   */
  fetch?: typeof fetch;
  /** SAML `AuthnContextClassRef` -> `amr` values (the built-in table with `Authentication:AuthnContextClassMethods`). */
  authnContextMethods: Readonly<Record<string, readonly string[]>>;
}

/**
 * One provider, whole: its declaration (settings, defaults, types, startup rules, claim
 * mappings) and the factory of its adapter. Adding a provider is one of these, its
 * adapter, a vendor-shaped test server and its contract-suite registration.
 */
export interface ProviderRecord<
  S extends ProviderCommonSettings = ProviderCommonSettings,
> extends ProviderDefinition<S> {
  /**
   * Builds the adapter from settings the startup rules have passed. It imports the
   * adapter's library only here: openid-client alone adds about a tenth of a second to a
   * cold start that does not use it. Constructing contacts nobody; a GatehouseError thrown
   * here is reported as a startup problem of the provider's `Enabled` key.
   */
  createAdapter(settings: S, context: AdapterContext): Promise<IdentityProvider>;
}

/** Declares a provider record, typed by its settings: the callback key must be one of them. */
export function provider<S extends ProviderCommonSettings>(
  record: ProviderRecord<S> & { callbackKey: keyof S & string },
): ProviderRecord<S> {
  return record;
}

/** How a provider is listed and routed, from its record and its settings. */
export function providerInfo(definition: ProviderDefinition, settings: ProviderCommonSettings): IdentityProviderInfo {
  return {
    key: definition.key,
    kind: definition.key,
    scheme: settings.Scheme,
    displayName: displayNameOf(definition, settings),
    callbackPath: callbackPathOf(definition, settings),
  };
}
