import { nearestKey } from './nearest-key.js';
import { envName, error, keyOf, warning, type SettingsProblem } from './problem.js';
import { ownedPathsOf, type ProviderDefinition } from '../providers/provider-definition.js';
import { CONNECTIONS_PATH_PREFIX, connectionIdInPath } from '../connections/connection.js';
import { checkProvider } from './provider-rules.js';
import { checkRedis } from './redis-rules.js';
import { checkAdministration } from './administration-rules.js';
import { checkDirectory } from './directory-rules.js';
import { IPV6_PREFIX_LENGTHS } from '../client-key.js';
import type { Environment, ProjectTemplateSettings, ProviderKey } from './settings.js';
import { CLOSING_SECONDS, MAX_SHUTDOWN_DRAIN_SECONDS, TERMINATION_GRACE_SECONDS } from './shutdown-timing.js';
import { isLocalPath, isLoopbackHost, parseHttpUrl } from './url-rules.js';

/** A key present in a configuration source that the schema does not know. */
export interface UnknownKey {
  /** Segments below `ProjectTemplate`, as the operator spelled them. */
  path: string[];
  /** The known keys at that level, to suggest the nearest one. */
  siblings: string[];
}

export interface SettingsContext {
  environment: Environment;
  unknownKeys: UnknownKey[];
  /** The providers this build declares (their sections are the only ones the configuration accepts). */
  providers: readonly ProviderDefinition[];
  /** True when a routed application endpoint answers at this path (callback paths must not collide). */
  isRoutedPath: (path: string) => boolean;
  /**
   * Whether this Node.js has node:sqlite, the embedded directory store's (bootstrap finds out
   * when the settings use that store). Not given: taken as present.
   */
  embeddedDirectoryStore?: boolean;
}

const COOKIE_SCHEME = 'Cookies';

/** The providers that register: their `Enabled` and `Authentication:Enabled` are both true. */
export function registeredProviders(settings: ProjectTemplateSettings): ProviderKey[] {
  if (!settings.Authentication.Enabled) return [];
  return Object.entries(settings.Authentication.Providers)
    .filter(([, provider]) => provider.Enabled)
    .map(([key]) => key);
}

/** The declarations of the registered providers, in declaration order. */
export function registeredDefinitions<D extends ProviderDefinition>(
  settings: ProjectTemplateSettings,
  providers: readonly D[],
): D[] {
  const registered = new Set(registeredProviders(settings));
  return providers.filter((provider) => registered.has(provider.key));
}

/**
 * The startup rules: every problem at once, each naming its full key and never a
 * configured value. Errors stop the process before it listens; warnings are logged.
 */
export function checkSettings(settings: ProjectTemplateSettings, context: SettingsContext): SettingsProblem[] {
  return [
    ...checkPosture(settings),
    ...checkProviders(settings, context),
    ...checkSchemes(settings),
    ...checkHosting(settings, context.environment),
    ...checkSession(settings, context.environment),
    ...checkAdministration(settings, context.environment),
    ...checkDirectory(settings, context.embeddedDirectoryStore),
    ...checkUnknownKeys(settings, context.unknownKeys),
  ];
}

/**
 * Authentication off needs the fallback off (docs: Startup validation, 3). An open
 * posture is allowed but never quiet: with the fallback off, every endpoint without
 * metadata answers anyone (docs: Authorization rules, 3), which an operator must see in
 * the startup log rather than discover.
 */
function checkPosture(settings: ProjectTemplateSettings): SettingsProblem[] {
  const fallbackKey = keyOf('Authorization', 'RequireAuthenticatedUserByDefault');
  if (!settings.Authorization.RequireAuthenticatedUserByDefault) {
    return [
      warning(
        fallbackKey,
        settings.Authentication.Enabled
          ? 'is false: every endpoint without authorization metadata is public. Prefer explicit anonymous metadata on the few endpoints meant to be public.'
          : `is false and ${keyOf('Authentication', 'Enabled')} is false (the --authProvider none posture): every endpoint without authorization metadata is public and nobody can sign in, until the application adds its own authentication and authorization.`,
      ),
    ];
  }
  if (settings.Authentication.Enabled) return [];
  return [
    error(
      fallbackKey,
      `must be false when ${keyOf('Authentication', 'Enabled')} is false: with authentication off nobody can satisfy the authenticated-user fallback. ` +
        `Either enable authentication, or set ${envName(fallbackKey)}=false to make unannotated endpoints public (the --authProvider none posture).`,
    ),
  ];
}

function checkProviders(settings: ProjectTemplateSettings, context: SettingsContext): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  const seenPaths = new Map<string, string>();
  for (const definition of registeredDefinitions(settings, context.providers)) {
    const section = settings.Authentication.Providers[definition.key];
    if (!section) continue;
    problems.push(...checkProvider(definition, section, context.environment));
    for (const [name, path] of ownedPathsOf(definition, section)) {
      const key = keyOf('Authentication', 'Providers', definition.key, name);
      const normalized = path.toLowerCase().replace(/\/+$/, '');
      // The callback path's own rules (required, local) are the provider's (checkProvider).
      if (name === definition.callbackKey && path === '') continue;
      if (name !== definition.callbackKey && !isLocalPath(path)) {
        problems.push(error(key, 'must be a path starting with a single "/" (no scheme, host, query or spaces)'));
        continue;
      }
      const other = seenPaths.get(normalized);
      if (connectionIdInPath(normalized) !== undefined) {
        problems.push(error(key, `must not be under ${CONNECTIONS_PATH_PREFIX}: those paths are the connections'`));
      } else if (other) problems.push(error(key, `collides with ${other}: every provider needs its own callback path`));
      else if (context.isRoutedPath(path)) problems.push(error(key, 'collides with a routed application endpoint'));
      seenPaths.set(normalized, key);
    }
  }
  return problems;
}

function checkSchemes(settings: ProjectTemplateSettings): SettingsProblem[] {
  const authentication = settings.Authentication;
  if (!authentication.Enabled) return [];
  const problems: SettingsProblem[] = [];
  const schemes = new Map<string, string>([[COOKIE_SCHEME.toLowerCase(), 'the local cookie scheme']]);
  for (const provider of registeredProviders(settings)) {
    const scheme = authentication.Providers[provider]?.Scheme ?? '';
    const key = keyOf('Authentication', 'Providers', provider, 'Scheme');
    const owner = schemes.get(scheme.toLowerCase());
    if (owner) problems.push(error(key, `is "${scheme}", already used by ${owner}: schemes must be unique`));
    else schemes.set(scheme.toLowerCase(), key);
  }
  for (const name of ['DefaultScheme', 'DefaultSignInScheme'] as const) {
    if (authentication[name] !== COOKIE_SCHEME) {
      problems.push(
        error(
          keyOf('Authentication', name),
          `must be "${COOKIE_SCHEME}": external providers sign in to the local cookie session`,
        ),
      );
    }
  }
  const challenge = authentication.DefaultChallengeScheme;
  const registered = [
    COOKIE_SCHEME,
    ...registeredProviders(settings).map((p) => authentication.Providers[p]?.Scheme ?? ''),
  ];
  if (!registered.includes(challenge)) {
    problems.push(
      error(
        keyOf('Authentication', 'DefaultChallengeScheme'),
        `names no registered scheme (registered: ${registered.join(', ')})`,
      ),
    );
  }
  if (!(authentication.HttpTimeoutSeconds > 0 && authentication.HttpTimeoutSeconds <= 60)) {
    problems.push(
      error(keyOf('Authentication', 'HttpTimeoutSeconds'), 'must be a number of seconds above 0 and at most 60'),
    );
  }
  return problems;
}

function checkHosting(settings: ProjectTemplateSettings, environment: Environment): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  const { PublicOrigin, ShutdownDrainSeconds } = settings.Hosting;
  const key = keyOf('Hosting', 'PublicOrigin');
  if (PublicOrigin === '') {
    if (environment === 'production')
      problems.push(
        error(key, 'is required in production: redirect URIs and links are built from it, never from the Host header'),
      );
  } else {
    const url = parseHttpUrl(PublicOrigin);
    if (!url || url.origin !== PublicOrigin.replace(/\/$/, '')) {
      problems.push(
        error(key, 'must be an origin such as https://app.example.com (scheme, host and optional port; no path)'),
      );
    } else if (environment === 'production' && url.protocol !== 'https:' && !isLoopbackHost(url.hostname)) {
      problems.push(error(key, 'must use https in production'));
    }
  }
  if (environment === 'production' && settings.Authentication.Enabled && !settings.Hosting.TrustProxy) {
    // The app speaks plain http; in production TLS ends at a proxy, and the Secure session
    // cookie can only be set on requests the app knows arrived over https (X-Forwarded-Proto).
    problems.push(
      error(
        keyOf('Hosting', 'TrustProxy'),
        'must be true in production: Gatehouse serves plain http behind a TLS-terminating proxy, and without trusting its X-Forwarded-Proto no Secure session cookie can be set, so every sign-in would fail',
      ),
    );
  }
  if (!(ShutdownDrainSeconds >= 0 && ShutdownDrainSeconds <= MAX_SHUTDOWN_DRAIN_SECONDS)) {
    problems.push(
      error(
        keyOf('Hosting', 'ShutdownDrainSeconds'),
        `must be between 0 and ${MAX_SHUTDOWN_DRAIN_SECONDS} seconds, so that the drain and up to ${CLOSING_SECONDS} s of closing after it end inside the ${TERMINATION_GRACE_SECONDS} s a host commonly allows after SIGTERM`,
      ),
    );
  }
  return problems;
}

function checkSession(settings: ProjectTemplateSettings, environment: Environment): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  const session = settings.Session;
  if (session.Store === 'Redis') problems.push(...checkRedis(session.Redis));
  if (!(session.IdleTimeout >= 60))
    problems.push(error(keyOf('Session', 'IdleTimeout'), 'must be at least 60 seconds'));
  if (!(session.AbsoluteLifetime >= session.IdleTimeout)) {
    problems.push(
      error(
        keyOf('Session', 'AbsoluteLifetime'),
        'must be at least ProjectTemplate:Session:IdleTimeout (both in seconds)',
      ),
    );
  }
  for (const name of ['MaxSessions', 'MaxPendingSignIns', 'MaxReplayRecords', 'PendingSignInsPerClient'] as const) {
    if (!(Number.isInteger(session[name]) && session[name] >= 1))
      problems.push(error(keyOf('Session', name), 'must be a whole number of at least 1'));
  }
  const { min, max } = IPV6_PREFIX_LENGTHS;
  if (!(
    Number.isInteger(session.ClientIpv6PrefixLength) &&
    session.ClientIpv6PrefixLength >= min &&
    session.ClientIpv6PrefixLength <= max
  )) {
    problems.push(error(keyOf('Session', 'ClientIpv6PrefixLength'), `must be a whole number from ${min} to ${max}`));
  }
  if (!(session.Redis.CommandTimeoutMs >= 50 && session.Redis.CommandTimeoutMs <= 10_000)) {
    problems.push(error(keyOf('Session', 'Redis', 'CommandTimeoutMs'), 'must be between 50 and 10000 milliseconds'));
  }
  session.Keys.forEach((value, index) => {
    if (value.length < 32)
      problems.push(error(keyOf('Session', 'Keys', String(index)), 'must be at least 32 characters of random text'));
  });
  if (session.CookieName !== '' && !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(session.CookieName)) {
    problems.push(error(keyOf('Session', 'CookieName'), 'must be a valid cookie name'));
  }
  if (environment === 'production' && session.CookieName !== '' && !session.CookieName.startsWith('__Host-')) {
    problems.push(
      warning(
        keyOf('Session', 'CookieName'),
        'should start with "__Host-" in production, so that no subdomain can set or shadow the cookie',
      ),
    );
  }
  if (environment === 'production' && session.Store === 'Memory') {
    problems.push(
      warning(
        keyOf('Session', 'Store'),
        'is Memory: sessions are per process and lost on restart; use Redis when running more than one instance',
      ),
    );
  }
  return problems;
}

export function checkUnknownKeys(settings: ProjectTemplateSettings, unknownKeys: UnknownKey[]): SettingsProblem[] {
  const registered = new Set<string>(registeredProviders(settings));
  return unknownKeys.map(({ path, siblings }) => {
    const key = keyOf(...path);
    const suggestion = nearestKey(path[path.length - 1] ?? '', siblings);
    const hint = suggestion ? `; did you mean ${keyOf(...path.slice(0, -1), suggestion)}?` : '';
    const underProviders = path[0] === 'Authentication' && path[1] === 'Providers';
    const underRegisteredProvider = underProviders && registered.has(path[2] ?? '');
    const misnamedProvider = underProviders && path.length === 3;
    // A connection's mistyped key would leave it running without what the operator meant.
    const underConnection = path[0] === 'Authentication' && path[1] === 'Connections';
    // A mistyped provider name or Enabled would silently leave something off: never only a warning.
    const fatal = underRegisteredProvider || misnamedProvider || underConnection || suggestion === 'Enabled';
    return fatal ? error(key, `is not a known key${hint}`) : warning(key, `is not a known key and is ignored${hint}`);
  });
}
