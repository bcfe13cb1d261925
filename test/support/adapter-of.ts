import { BUILT_IN_AUTHN_CONTEXT_METHODS } from '../../src/domain/claims/authn-context-methods.js';
import { providerInfo, type AdapterContext, type ProviderRecord } from '../../src/adapters/provider-record.js';
import type { IdentityProvider, LogoutEndpoint } from '../../src/application/ports/identity-provider.js';
import type { Logger } from '../../src/application/ports/logger.js';
import { MemorySessionStore } from '../../src/adapters/session/memory-session-store.js';
import type { ProviderCommonSettings } from '../../src/domain/settings/settings.js';
import { FixedClock } from './fixed-clock.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * One provider's adapter, built from its record as the composition root builds it (its
 * defaults, enabled, with `settings` over them); constructing contacts nobody.
 */
export function adapterOf<S extends ProviderCommonSettings>(
  record: ProviderRecord<S>,
  settings: Partial<S>,
  context: Partial<AdapterContext> = {},
): Promise<IdentityProvider> {
  const section = { ...record.defaults, Enabled: true, ...settings };
  return record.createAdapter(section, {
    info: providerInfo(record, section),
    publicOrigin: 'https://app.example.com',
    environment: 'test',
    timeoutMs: 1000,
    logger: silent,
    clock: new FixedClock(0),
    sessionStore: new MemorySessionStore({ maxEntries: 100, clock: new FixedClock(0) }),
    replayRecords: new MemorySessionStore({ maxEntries: 100, clock: new FixedClock(0) }),
    rootDir: process.cwd(),
    authnContextMethods: BUILT_IN_AUTHN_CONTEXT_METHODS,
    ...context,
  });
}

/** What an adapter call came to: `accepted`, or the code it was refused with. */
export function outcomeOf(call: Promise<unknown>): Promise<string | undefined> {
  return call.then(
    () => 'accepted',
    (error: unknown) => (error as { code?: string }).code,
  );
}

/** An adapter's logout endpoint (of `channel`, else its first), to hand to `receiveLogout` when a test calls it directly. */
export function logoutEndpointOf(provider: IdentityProvider, channel?: LogoutEndpoint['channel']): LogoutEndpoint {
  const endpoint = provider.logoutEndpoints?.find(
    (candidate) => channel === undefined || candidate.channel === channel,
  );
  if (!endpoint) throw new Error('this adapter has no such logout endpoint');
  return endpoint;
}
