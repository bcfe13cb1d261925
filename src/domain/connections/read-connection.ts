import type { ProviderDefinition } from '../providers/provider-definition.js';
import { error, warning, type SettingsProblem } from '../settings/problem.js';
import { checkProvider, type ProviderSection } from '../settings/provider-rules.js';
import type { ClaimMappings, Environment, ProviderCommonSettings } from '../settings/settings.js';
import {
  CONNECTION_KEY_DEFAULTS,
  CONNECTION_KEY_KINDS,
  connectionBasePath,
  isConnectionName,
  type Connection,
  type ConnectionDeclaration,
} from './connection.js';
import type { UnclaimableReason } from './unclaimable-domains.js';
import { normalizeDomainPattern } from './email-domain.js';

export interface ConnectionRulesContext {
  environment: Environment;
  /** The provider kinds this build declares; those with `instancePaths` can back a connection. */
  protocols: readonly ProviderDefinition[];
  /** Why a normalized `Domains` entry is nobody's or anybody's (`unclaimableDomains` over the public lists), or undefined. */
  unclaimableDomain: (pattern: string) => UnclaimableReason | undefined;
}

/**
 * Checks one declared connection by every rule that needs no other connection, and builds
 * it: the protocol's own startup rules on its section (defaults, the keys set, the paths
 * derived from the name), then the connection's (a usable name, an organization, domains
 * that are domains and nobody's mailbox provider). Problems name the full key and never a
 * value. Rules between connections (one owner per domain, per identity provider, per
 * name) are the directory's (ConnectionIndex).
 */
export function readConnection(
  declaration: ConnectionDeclaration,
  context: ConnectionRulesContext,
): { connection?: Connection; problems: SettingsProblem[] } {
  const { name, section } = declaration;
  const key = (setting: string) => `${declaration.origin}:${setting}`;
  const problems: SettingsProblem[] = [...declaration.problems];
  if (!isConnectionName(name)) {
    problems.push(
      error(
        declaration.origin,
        'names a connection badly: a connection name is letters, digits and "-", starting with a letter, at most 63 characters',
      ),
    );
  }
  const protocolName = typeof section.Protocol === 'string' ? section.Protocol : '';
  const protocol = context.protocols.find((kind) => kind.instancePaths && kind.key === protocolName);
  if (!protocol) {
    const offered = context.protocols.filter((kind) => kind.instancePaths).map((kind) => kind.key);
    problems.push(error(key('Protocol'), `must be one of ${offered.join(', ')}`));
    return { problems };
  }
  const derivedPaths = protocol.instancePaths?.(connectionBasePath(name)) ?? {};
  const protocolKeys: Record<string, unknown> = {};
  for (const [setting, value] of Object.entries(section)) {
    if (setting in CONNECTION_KEY_KINDS) continue;
    if (setting === 'Scheme') problems.push(error(key(setting), 'is the connection name: a connection sets no Scheme'));
    else if (!(setting in protocol.kinds))
      problems.push(error(key(setting), `is not a key of a ${protocol.key} connection`));
    else if (setting in derivedPaths && value !== '') {
      problems.push(
        error(
          key(setting),
          `is derived from the connection name (${derivedPaths[setting]}); it may only be set to "" to turn that path off`,
        ),
      );
    } else protocolKeys[setting] = value;
  }

  const organization = typeof section.Organization === 'string' ? section.Organization.trim() : '';
  if (organization === '') problems.push(error(key('Organization'), 'is required: the identifier of the organization'));
  else if (organization.length > 200 || /\p{Cc}/u.test(organization)) {
    problems.push(error(key('Organization'), 'must be at most 200 characters, without control characters'));
  }
  const grantsDeploymentRoles = section.GrantsDeploymentRoles === true;
  if (grantsDeploymentRoles && declaration.fromConfiguration !== true) {
    problems.push(
      error(
        key('GrantsDeploymentRoles'),
        "can be set only in the deployment's configuration (Authentication:Connections), never in a connection file: a customer's identity provider grants roles in its own organization only",
      ),
    );
  } else if (grantsDeploymentRoles) {
    // Said at every start: an operator reviewing the log sees which provider can make deployment administrators.
    problems.push(
      warning(
        key('GrantsDeploymentRoles'),
        "is true: this connection's identity provider grants the deployment's own roles and permissions (its Administrator administers the whole deployment)",
      ),
    );
  }
  checkRoleMappings(section.RoleMappings, key('RoleMappings'), problems);
  checkRoleMappings(section.PermissionMappings, key('PermissionMappings'), problems);
  const allowConsumer = section.AllowConsumerDomains === true;
  const declaredDomains = readDomains(section.Domains, allowConsumer, context, key('Domains'), problems);
  const { domains, pendingDomains } = splitByProof(declaredDomains, declaration.verifiedDomains);

  const displayName =
    typeof section.DisplayName === 'string' && section.DisplayName.trim() !== '' ? section.DisplayName : name;
  const settings = {
    ...copyOfDefaults(protocol.defaults),
    ...derivedPaths,
    ...protocolKeys,
    Enabled: true,
    Scheme: name,
    DisplayName: displayName,
  } as ProviderCommonSettings;
  const at: ProviderSection = { key, requiredWhen: `${protocol.key} is a connection's Protocol` };
  problems.push(...checkProvider(protocol, settings, context.environment, at));
  if (problems.some((problem) => problem.severity === 'error')) return { problems };
  const issuer = protocol.declaredIssuer?.(settings);

  return {
    problems,
    connection: {
      name,
      id: name.toLowerCase(),
      protocol,
      organization,
      displayName,
      domains,
      pendingDomains,
      managed: declaration.verifiedDomains !== undefined,
      activated: section.Activated !== false,
      showOnLoginPage: section.ShowOnLoginPage === true,
      sendLoginHint:
        typeof section.SendLoginHint === 'boolean' ? section.SendLoginHint : CONNECTION_KEY_DEFAULTS.SendLoginHint,
      claimMappings: readMappings(section.ClaimMappings),
      roleMappings: readMappings(section.RoleMappings),
      permissionMappings: readMappings(section.PermissionMappings),
      grantsDeploymentRoles,
      settings,
      issuer: issuer?.value ?? '',
      issuerSetting: issuer?.key ?? '',
      origin: declaration.origin,
      // The proofs are part of it: a domain verified changes what routes though no key changed.
      fingerprint: JSON.stringify([
        name,
        Object.entries(section).sort(([a], [b]) => (a < b ? -1 : 1)),
        declaration.verifiedDomains ?? null,
      ]),
    },
  };
}

/**
 * The declared domains that route and those waiting for their DNS proof: all route when
 * the declaration is the operator's (no proofs given). A wildcard (`*.example.com`) is
 * proved by its base domain's record, so it routes once the base is verified.
 */
function splitByProof(
  declared: readonly string[],
  verified: readonly string[] | undefined,
): { domains: string[]; pendingDomains: string[] } {
  if (verified === undefined) return { domains: [...declared], pendingDomains: [] };
  const proved = new Set(verified);
  const routes = (pattern: string) => proved.has(pattern.startsWith('*.') ? pattern.slice(2) : pattern);
  return { domains: declared.filter(routes), pendingDomains: declared.filter((pattern) => !routes(pattern)) };
}

function readDomains(
  value: unknown,
  allowConsumer: boolean,
  context: ConnectionRulesContext,
  key: string,
  problems: SettingsProblem[],
): string[] {
  const entries = Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
  if (entries.length === 0) {
    problems.push(error(key, "is required: at least one of the organization's e-mail domains"));
    return [];
  }
  const domains: string[] = [];
  entries.forEach((entry, index) => {
    const pattern = normalizeDomainPattern(entry);
    const unclaimable = pattern === undefined ? undefined : context.unclaimableDomain(pattern);
    if (pattern === undefined) {
      problems.push(
        error(`${key}:${index}`, 'must be a domain (example.com) or a wildcard over its subdomains (*.example.com)'),
      );
    } else if (unclaimable === 'public-suffix') {
      problems.push(
        error(
          `${key}:${index}`,
          'is a public suffix (on the Public Suffix List, like co.uk), or a wildcard over one: names under it belong to whoever registers them, so no organization can claim it',
        ),
      );
    } else if (unclaimable === 'consumer-mail' && !allowConsumer) {
      problems.push(
        error(
          `${key}:${index}`,
          'is a consumer mail domain anyone can have an address at; an organization cannot claim it (set AllowConsumerDomains only for a provider of your own that signs in the public)',
        ),
      );
    } else if (domains.includes(pattern)) {
      problems.push(error(`${key}:${index}`, 'is listed twice'));
    } else domains.push(pattern);
  });
  return domains;
}

/** A mapping's values name organization roles or permissions: plain words, never empty (an empty one would grant nothing anyone can ask for). */
function checkRoleMappings(value: unknown, key: string, problems: SettingsProblem[]): void {
  for (const [source, target] of Object.entries(readMappings(value))) {
    if (source === '' || target.trim() === '' || target.length > 200 || /\p{Cc}/u.test(target + source)) {
      problems.push(
        error(
          key,
          'maps each provider value to a non-empty name of at most 200 characters, without control characters',
        ),
      );
      return;
    }
  }
}

function readMappings(value: unknown): ClaimMappings {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/**
 * A protocol's defaults as a connection's own: a copy whose arrays (`Scopes`) and objects
 * are copies too, so that no connection shares them with another or with the defaults.
 * The defaults are JSON values: a spread and a copy of the few that are not primitives
 * costs a fraction of `structuredClone`, and every connection of a catalog pays it at start.
 */
function copyOfDefaults(defaults: ProviderCommonSettings): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...defaults };
  for (const key of nestedKeysOf(defaults)) copy[key] = copyOfValue(copy[key]);
  return copy;
}

const nestedKeysByDefaults = new WeakMap<object, readonly string[]>();

function nestedKeysOf(defaults: object): readonly string[] {
  let keys = nestedKeysByDefaults.get(defaults);
  if (!keys) {
    keys = Object.entries(defaults)
      .filter(([, value]) => typeof value === 'object' && value !== null)
      .map(([key]) => key);
    nestedKeysByDefaults.set(defaults, keys);
  }
  return keys;
}

function copyOfValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyOfValue);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyOfValue(item)]));
}
