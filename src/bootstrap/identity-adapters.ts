import type { Clock } from '../application/ports/clock.js';
import type { IdentityProvider, IdentityProviderInfo } from '../application/ports/identity-provider.js';
import { connectionInfo } from '../application/identity-providers.js';
import type { OutboundRequests } from '../adapters/outbound-requests.js';
import { addressGuardedFetch } from '../adapters/outbound/address-guarded-fetch.js';
import { providerInfo, type AdapterContext } from '../adapters/provider-record.js';
import {
  connectionReplayShare,
  REPLAY_SHARE_WINDOW_MS,
  ReplayShareSessionStore,
} from '../adapters/session/replay-share-session-store.js';
import { ScopedSessionStore } from '../adapters/session/scoped-session-store.js';
import { authnContextMethods } from '../domain/claims/authn-context-methods.js';
import type { Connection } from '../domain/connections/connection.js';
import { isGatehouseError } from '../domain/errors.js';
import { registeredDefinitions } from '../domain/settings/check-settings.js';
import { error, keyOf, type SettingsProblem } from '../domain/settings/problem.js';
import type { SessionStores } from './session-stores.js';
import { report, type ValidatedConfiguration } from './validated-configuration.js';

/** The stores an adapter records in: the shared ones for the deployment's providers, its own scopes for a connection. */
type AdapterStores = Pick<AdapterContext, 'sessionStore' | 'replayRecords'>;

/**
 * Builds identity adapters from their provider records: the deployment's own providers at
 * start, a connection's on its first use. The one place an adapter's context is put
 * together, so the two kinds differ only where they must: a connection's info, and its
 * own scope (and share of the replay records) in the stores.
 */
export class IdentityAdapters {
  private readonly shared: Omit<AdapterContext, 'info' | keyof AdapterStores>;
  readonly #guardedFetch: typeof fetch;

  constructor(
    private readonly configuration: ValidatedConfiguration,
    clock: Clock,
    private readonly stores: SessionStores,
    outbound: OutboundRequests | undefined,
  ) {
    const { settings } = configuration;
    this.#guardedFetch = addressGuardedFetch({ allowHttp: configuration.environment === 'development' });
    this.shared = {
      publicOrigin: configuration.publicOrigin,
      environment: configuration.environment,
      timeoutMs: settings.Authentication.HttpTimeoutSeconds * 1000,
      logger: configuration.logger,
      clock,
      rootDir: configuration.rootDir,
      ...(outbound ? { outbound } : {}),
      authnContextMethods: authnContextMethods(settings.Authentication.AuthnContextClassMethods),
    };
  }

  /**
   * One adapter per registered provider of the deployment. An adapter that refuses its
   * settings (a GatehouseError) is a startup problem of the provider's `Enabled` key;
   * every refusal is reported at once.
   */
  async deploymentProviders(): Promise<IdentityProvider[]> {
    const { settings } = this.configuration;
    const providers: IdentityProvider[] = [];
    const problems: SettingsProblem[] = [];
    const stores = { sessionStore: this.stores.sessions, replayRecords: this.stores.replayRecords };
    for (const record of registeredDefinitions(settings, this.configuration.providers)) {
      const section = settings.Authentication.Providers[record.key];
      if (!section) continue;
      try {
        providers.push(await record.createAdapter(section, this.context(providerInfo(record, section), stores)));
      } catch (thrown) {
        // The adapters' own messages never quote a value (a URL may carry a password).
        if (!isGatehouseError(thrown)) throw thrown;
        problems.push(
          error(keyOf('Authentication', 'Providers', record.key, 'Enabled'), `was refused: ${thrown.message}`),
        );
      }
    }
    report(this.configuration.logger, problems, this.configuration.logStartupErrors);
    return providers;
  }

  /** A connection's adapter, from its protocol's record, with store scopes of its own for what the adapter records. */
  forConnection(connection: Connection): Promise<IdentityProvider> {
    const record = this.configuration.providers.find((candidate) => candidate.key === connection.protocol.key);
    if (!record) throw new Error(`No provider record for the protocol ${connection.protocol.key}`);
    const scope = `connection:${connection.id}:`;
    return record.createAdapter(
      connection.settings,
      this.context(connectionInfo(connection), {
        ...(this.#guardsAddressesOf(connection) ? { fetch: this.#guardedFetch } : {}),
        sessionStore: new ScopedSessionStore(this.stores.sessions, scope),
        // Its own share of the replay records: one organization's flood refuses only its own messages.
        replayRecords: new ReplayShareSessionStore(new ScopedSessionStore(this.stores.replayRecords, scope), {
          share: connectionReplayShare(this.configuration.settings.Session.MaxReplayRecords),
          windowMs: REPLAY_SHARE_WINDOW_MS,
          owner: connection.name,
          logger: this.configuration.logger,
        }),
      }),
    );
  }

  /**
   * A connection an organization declared itself (through the administration API or the
   * setup portal) names addresses the deployment never reviewed: its adapter's requests are
   * vetted as the pre-flight's are, each one (discovery names more addresses than it was
   * given, and a host name may resolve elsewhere later). Not where the operator allows private
   * networks (`Administration:AllowPrivateNetworks`: providers on its own network, the demo).
   */
  #guardsAddressesOf(connection: Connection): boolean {
    return connection.managed && !this.configuration.settings.Administration.AllowPrivateNetworks;
  }

  private context(info: IdentityProviderInfo, stores: AdapterStores): AdapterContext {
    return { ...this.shared, info, ...stores };
  }
}
