import type { ClaimMapping } from '../claims/claim-mappings.js';
import type { SettingsProblem } from '../settings/problem.js';
import type { Environment, ProviderCommonSettings } from '../settings/settings.js';

/**
 * How one configuration key of a provider is typed: the configuration schema is made
 * from it (`secret` marks a value that is redacted from every log and message; an array
 * of strings is the list of accepted values).
 */
export type SettingKind = 'string' | 'secret' | 'boolean' | 'number' | 'strings' | readonly string[];

/** The checks a provider's startup rules are written with; each names the provider's full key, never a value. */
export interface ProviderChecks {
  environment: Environment;
  /** `ProjectTemplate:Authentication:Providers:<Key>:<name>`. */
  key(name: string): string;
  /** The value is not blank. */
  required(name: string, value: string): SettingsProblem[];
  /** Required, and an https URL (http only for a loopback host outside production). */
  httpsUrl(name: string, value: string): SettingsProblem[];
  /** Empty (the vendor's production endpoint), or an https URL as `httpsUrl` accepts it. */
  optionalHttpsUrl(name: string, value: string): SettingsProblem[];
  /** Required, and an absolute http(s) URL. */
  absoluteUrl(name: string, value: string): SettingsProblem[];
  /** A problem with the key, worded as the rule wants it. */
  problem(name: string, message: string): SettingsProblem[];
  /** A warning about the key: logged at startup, the process starts. */
  warning(name: string, message: string): SettingsProblem[];
}

/**
 * Everything Gatehouse knows of one identity provider without talking to it: its key
 * under `Authentication:Providers`, its settings with their defaults and types, its
 * startup rules and its default claim mappings. The startup rules, the configuration
 * schema, the defaults and claims normalization are all derived from these declarations,
 * so no layer spells out the list of providers. (The adapter that talks to the provider
 * is attached to the declaration outside the domain.)
 */
export interface ProviderDefinition<S extends ProviderCommonSettings = ProviderCommonSettings> {
  /** The key under `ProjectTemplate:Authentication:Providers` (`OpenIdConnect`, `Social1` ...). */
  readonly key: string;
  /** The settings every key of the section takes when no configuration source sets it. */
  readonly defaults: S;
  /** The type of every key of the section: a key not listed here is refused as unknown. */
  readonly kinds: { readonly [K in keyof S]-?: SettingKind };
  /** The key holding the path the provider's protocol messages arrive at. */
  readonly callbackKey: string;
  /**
   * Further paths the provider's messages arrive at, beyond the callback (a SAML single
   * logout path), by the key that holds each: only those its settings turn on. Checked
   * like the callback path: local, and colliding with nothing.
   */
  ownedPaths?(settings: S): Readonly<Record<string, string>>;
  /**
   * For a kind that can back connections (many instances, one per organization): the
   * values of its path keys for an instance whose paths start at `base`
   * (`/connections/acme`). A kind without it is offered once only (the social providers).
   */
  instancePaths?(base: string): Readonly<Record<string, string>>;
  /**
   * The identity provider an instance's settings name (an OpenID issuer, a SAML entity ID
   * or metadata URL), compared between connections: one connection per identity provider.
   */
  declaredIssuer?(settings: S): { key: string; value: string };
  /** Shown when `DisplayName` is empty (a vendor's own name); without it, `DisplayName` is required. */
  readonly vendorName?: string;
  /** The built-in claim mapping table (`ClaimsTransformation:Mappings:<Key>` adds rows or overrides them). */
  readonly claimMappings: readonly ClaimMapping[];
  /** The provider's own startup rules, beyond the common ones (Scheme, DisplayName, callback path). */
  rules(settings: S, check: ProviderChecks): SettingsProblem[];
}

/** The name a provider is listed under: its DisplayName, or its vendor's name when that is empty. */
export function displayNameOf(definition: ProviderDefinition, settings: ProviderCommonSettings): string {
  return settings.DisplayName.trim() === '' && definition.vendorName ? definition.vendorName : settings.DisplayName;
}

/** Every path a provider owns, by the key that holds it: its callback path first, then its `ownedPaths`. */
export function ownedPathsOf(
  definition: ProviderDefinition,
  settings: ProviderCommonSettings,
): Array<[string, string]> {
  const more = definition.ownedPaths?.(settings) ?? {};
  return [[definition.callbackKey, callbackPathOf(definition, settings)], ...Object.entries(more)];
}

/** The path a provider's protocol messages arrive at, as configured. */
export function callbackPathOf(definition: ProviderDefinition, settings: ProviderCommonSettings): string {
  const path = (settings as unknown as Record<string, unknown>)[definition.callbackKey];
  return typeof path === 'string' ? path : '';
}
