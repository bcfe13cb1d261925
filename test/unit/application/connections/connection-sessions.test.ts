import { NoTelemetry } from '../../../../src/application/ports/telemetry.js';
import 'reflect-metadata';
import { expect } from 'chai';
import { ConnectionAdapters } from '../../../../src/application/connections/connection-adapters.js';
import { ConnectionRegistry } from '../../../../src/application/connections/connection-registry.js';
import { EndRemovedConnections } from '../../../../src/application/connections/end-removed-connections.js';
import { ConnectionRemovals } from '../../../../src/application/connections/connection-removals.js';
import { IdentityProviders } from '../../../../src/application/identity-providers.js';
import type { SessionStore } from '../../../../src/application/ports/session-store.js';
import { ProviderSessions } from '../../../../src/application/sign-in/provider-sessions.js';
import { SessionIndex } from '../../../../src/application/sign-in/session-index.js';
import { SignInRecords } from '../../../../src/application/sign-in/sign-in-records.js';
import { AuthenticateSession } from '../../../../src/application/use-cases/authenticate-session.js';
import { CONNECTION_LOGOUT_KEY } from '../../../../src/application/use-cases/complete-sign-in.js';
import { EndSessions } from '../../../../src/application/use-cases/end-sessions.js';
import { RefreshProviderSession } from '../../../../src/application/use-cases/refresh-provider-session.js';
import { MemorySessionStore } from '../../../../src/adapters/session/memory-session-store.js';
import { builtInProviders } from '../../../../src/bootstrap/provider-catalogue.js';
import { ClaimTypes } from '../../../../src/domain/claims/claim-types.js';
import type { Principal } from '../../../../src/domain/claims/principal.js';
import { defaultSettings } from '../../../../src/domain/settings/default-settings.js';
import { CONNECTION_RULES, declaration, oidcSection, samlSection } from '../../../support/connection-declarations.js';
import { FakeBrowserSession } from '../../../support/fake-browser-session.js';
import { FakeIdentityProvider } from '../../../support/fake-identity-provider.js';
import { FixedClock } from '../../../support/fixed-clock.js';
import { RecordingAuditLog } from '../../../support/recording-audit-log.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const ORIGIN = (name: string) => `/srv/connections/${name}.json`;

/** A principal as CompleteSignIn leaves it for a connection's sign-in: the organization and connection set. */
function connectionPrincipal(connection: string, organization: string, subject: string): Principal {
  return {
    scheme: connection,
    claims: [
      { type: ClaimTypes.Subject, value: subject, issuer: connection },
      { type: ClaimTypes.Organization, value: organization, issuer: connection },
      { type: ClaimTypes.Connection, value: connection, issuer: connection },
    ],
  };
}

describe('the sessions of a connection that is gone', () => {
  const settings = defaultSettings(builtInProviders);
  let clock: FixedClock;
  let store: SessionStore;
  let registry: ConnectionRegistry;
  let signIns: SignInRecords;
  let index: SessionIndex;
  let audit: RecordingAuditLog;
  let authenticate: AuthenticateSession;
  let logged: string[];
  let removals: ConnectionRemovals;
  let removalStore: SessionStore;
  let endSessions: EndSessions;

  beforeEach(() => {
    clock = new FixedClock(1_000_000);
    store = new MemorySessionStore({ maxEntries: 1000, clock });
    registry = new ConnectionRegistry(CONNECTION_RULES, new Set(['cookies', 'openidconnect']));
    signIns = new SignInRecords(store, settings);
    index = new SessionIndex(store);
    audit = new RecordingAuditLog();
    logged = [];
    const own = new FakeIdentityProvider();
    const providers = new IdentityProviders(
      [own],
      new ConnectionAdapters(registry, async () => new FakeIdentityProvider(), quiet),
    );
    const providerSessions = new ProviderSessions(store, settings);
    removalStore = new MemorySessionStore({ maxEntries: 100, clock });
    removals = new ConnectionRemovals(removalStore, clock, settings);
    endSessions = new EndSessions(store, signIns, providerSessions, index, audit, new NoTelemetry());
    authenticate = new AuthenticateSession(
      signIns,
      providerSessions,
      new RefreshProviderSession(providers, clock, quiet, store, settings),
      clock,
      settings,
      audit,
      providers,
      removals,
      endSessions,
    );
    new EndRemovedConnections(
      endSessions,
      {
        ...quiet,
        error: (fields: object, message: string) => logged.push(`${message} ${JSON.stringify(fields)}`),
      },
      removals,
    ).listen(registry);
    declare('Acme', samlSection('acme', ['acme.com']));
    declare('Globex', oidcSection('globex', ['globex.com']));
  });

  const declare = (name: string, section: Record<string, unknown>) =>
    registry.apply([{ kind: 'declared', declaration: declaration(name, section, ORIGIN(name)) }]);
  const remove = (name: string) => registry.apply([{ kind: 'removed', name, origin: ORIGIN(name) }]);

  /** A signed-in browser session as CompleteSignIn leaves it: its record, and its place under the connection's logout key. */
  async function signedIn(provider: string, principal: Principal): Promise<FakeBrowserSession> {
    const signIn = await signIns.create(principal, provider);
    const handle = `session:${provider}-${String(principal.claims[0]?.value)}`;
    const fields = {
      signIn: signIn.ref,
      publicId: `public-${handle}`,
      createdAt: clock.now(),
      lastSeenAt: clock.now(),
    };
    await store.create(handle, fields, 3_600_000);
    if (principal.claims.some((claim) => claim.type === ClaimTypes.Connection)) {
      await index.addByLogoutKey(provider, CONNECTION_LOGOUT_KEY, handle, clock.now() + 3_600_000);
    }
    return new FakeBrowserSession(fields, handle);
  }
  const isSignedIn = async (session: FakeBrowserSession) => (await authenticate.execute(session)) !== undefined;
  /** The ending runs after the event (nothing waits for it): let it finish. */
  const endingsDone = async (count: number) => {
    for (let turn = 0; turn < 100 && audit.ofType('sessions.ended').length < count; turn += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  it('a session of a connection in force is signed in', async () => {
    const acme = await signedIn('Acme', connectionPrincipal('Acme', 'acme', 'ada'));
    expect(await isSignedIn(acme)).to.equal(true);
  });

  it('is anonymous as soon as the connection is gone, before any ending has run (an instance that missed it)', async () => {
    const acme = await signedIn('Acme', connectionPrincipal('Acme', 'acme', 'ada'));
    // Removed from this registry only, without the listener's ending: what a lagging instance sees.
    const lagging = new ConnectionRegistry(CONNECTION_RULES, new Set());
    const providers = new IdentityProviders(
      [],
      new ConnectionAdapters(lagging, async () => new FakeIdentityProvider(), quiet),
    );
    const laggingAuthenticate = new AuthenticateSession(
      signIns,
      new ProviderSessions(store, settings),
      new RefreshProviderSession(providers, clock, quiet, store, settings),
      clock,
      settings,
      audit,
      providers,
      removals,
      endSessions,
    );
    expect(await laggingAuthenticate.execute(acme)).to.equal(undefined);
    expect(await store.get(acme.handle ?? ''), 'nothing was ended there').not.to.equal(undefined);
  });

  it('is anonymous once its connection moved to another organization (the session carries the earlier one)', async () => {
    const globex = await signedIn('Globex', connectionPrincipal('Globex', 'globex', 'gus'));
    declare('Globex', oidcSection('globex-holding', ['globex.com']));
    expect(await isSignedIn(globex)).to.equal(false);
  });

  it('ends the removed connection’s sessions through EndSessions (cause connection_removed), and nobody else’s', async () => {
    const ada = await signedIn('Acme', connectionPrincipal('Acme', 'acme', 'ada'));
    const amy = await signedIn('Acme', connectionPrincipal('Acme', 'acme', 'amy'));
    const gus = await signedIn('Globex', connectionPrincipal('Globex', 'globex', 'gus'));
    const own = await signedIn('OpenIdConnect', {
      scheme: 'OpenIdConnect',
      claims: [{ type: ClaimTypes.Subject, value: 'una', issuer: 'OpenIdConnect' }],
    });
    remove('Acme');
    await endingsDone(1);
    expect(await store.get(ada.handle ?? '')).to.equal(undefined);
    expect(await store.get(amy.handle ?? '')).to.equal(undefined);
    expect(await isSignedIn(gus)).to.equal(true);
    expect(await isSignedIn(own)).to.equal(true);
    expect(audit.ofType('sessions.ended')).to.deep.equal([
      {
        type: 'sessions.ended',
        by: 'system',
        cause: 'connection_removed',
        request: undefined,
        provider: 'Acme',
        count: 2,
      },
    ]);
    expect(audit.ofType('signout').map((event) => [event.provider, event.subject, event.cause])).to.have.deep.members([
      ['Acme', 'ada', 'connection_removed'],
      ['Acme', 'amy', 'connection_removed'],
    ]);
  });

  it('ends the sessions of a connection set Enabled false, and of one moved to another organization', async () => {
    await signedIn('Acme', connectionPrincipal('Acme', 'acme', 'ada'));
    await signedIn('Globex', connectionPrincipal('Globex', 'globex', 'gus'));
    declare('Acme', samlSection('acme', ['acme.com'], { Enabled: false }));
    declare('Globex', oidcSection('globex-holding', ['globex.com']));
    await endingsDone(2);
    expect(audit.ofType('sessions.ended').map((event) => [event.provider, event.count])).to.deep.equal([
      ['Acme', 1],
      ['Globex', 1],
    ]);
  });

  it('ends nothing when a connection changes within its organization', async () => {
    const globex = await signedIn('Globex', connectionPrincipal('Globex', 'globex', 'gus'));
    declare('Globex', oidcSection('globex', ['globex.com', 'globex.org'], { DisplayName: 'Globex Corp' }));
    await endingsDone(1);
    expect(audit.ofType('sessions.ended')).to.deep.equal([]);
    expect(await isSignedIn(globex)).to.equal(true);
  });

  it('a session the ending missed stays ended when its connection moves to another organization and back', async () => {
    const gus = await signedIn('Globex', connectionPrincipal('Globex', 'globex', 'gus'));
    await index.removeByLogoutKey('Globex', CONNECTION_LOGOUT_KEY, gus.handle ?? '');
    clock.advance(1_000);
    declare('Globex', oidcSection('globex-holding', ['globex.com']));
    await endingsDone(1);
    clock.advance(1_000);
    declare('Globex', oidcSection('globex', ['globex.com']));
    expect(await store.get(gus.handle ?? ''), 'the ending did not find it').not.to.equal(undefined);
    expect(await isSignedIn(gus)).to.equal(false);
    expect(await store.get(gus.handle ?? ''), 'ended at its request').to.equal(undefined);
    expect(gus.ended).to.equal(true);
    clock.advance(1_000);
    const later = await signedIn('Globex', connectionPrincipal('Globex', 'globex', 'gwen'));
    expect(await isSignedIn(later), 'a sign-in after it came back').to.equal(true);
  });

  it('an instance that never saw the removal learns its time from the store', async () => {
    const ada = await signedIn('Acme', connectionPrincipal('Acme', 'acme', 'ada'));
    await index.removeByLogoutKey('Acme', CONNECTION_LOGOUT_KEY, ada.handle ?? '');
    clock.advance(1_000);
    remove('Acme');
    await endingsDone(1);
    declare('Acme', samlSection('acme', ['acme.com']));
    // Another process: the same stores, its own memory of removals (empty).
    const elsewhere = new AuthenticateSession(
      signIns,
      new ProviderSessions(store, settings),
      new RefreshProviderSession(
        new IdentityProviders([], new ConnectionAdapters(registry, async () => new FakeIdentityProvider(), quiet)),
        clock,
        quiet,
        store,
        settings,
      ),
      clock,
      settings,
      audit,
      new IdentityProviders([], new ConnectionAdapters(registry, async () => new FakeIdentityProvider(), quiet)),
      new ConnectionRemovals(removalStore, clock, settings),
      endSessions,
    );
    expect(await elsewhere.execute(ada)).to.equal(undefined);
    expect(await store.get(ada.handle ?? '')).to.equal(undefined);
  });

  it('logs, and throws nowhere, when the store cannot end them now', async () => {
    await signedIn('Acme', connectionPrincipal('Acme', 'acme', 'ada'));
    store.indexMembers = async () => {
      throw new Error('the store did not answer');
    };
    remove('Acme');
    for (let turn = 0; turn < 100 && logged.length === 0; turn += 1) await new Promise((r) => setImmediate(r));
    expect(logged).to.have.length(1);
    expect(logged[0]).to.contain('"connection":"Acme"');
  });
});
