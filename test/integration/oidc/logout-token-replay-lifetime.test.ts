import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { signingKey, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { openIdConnect } from '../../../src/adapters/oidc/open-id-connect.js';
import { LOGOUT_TOKEN_CLOCK_SKEW_S, LOGOUT_TOKEN_MAX_AGE_S } from '../../../src/adapters/oidc/logout-token.js';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import { RedisSessionStore } from '../../../src/adapters/session/redis-session-store.js';
import type { IdentityProvider } from '../../../src/application/ports/identity-provider.js';
import type { SessionStore } from '../../../src/application/ports/session-store.js';
import { isGatehouseError } from '../../../src/domain/errors.js';
import { adapterOf, logoutEndpointOf } from '../../support/adapter-of.js';
import { FixedClock } from '../../support/fixed-clock.js';
import { signLogoutToken } from '../../support/logout-tokens.js';
import { CLIENT_SECRET, startIdentityProvider } from '../../support/oidc-app.js';
import { RecordingLogger, shortenTimesToLive } from '../session/replicated-redis.js';

const redisUrl = process.env.REDIS_URL ?? '';
/** The lifetime the test tokens are signed with (`exp` - `iat`), in seconds. */
const TOKEN_LIFETIME_S = 120;
/** What a provider that makes its tokens valid for most of a day signs (`exp` - `iat`). */
const LONG_LIFETIME_S = 23 * 60 * 60;

/** Each token lifetime tried, and how long its use must be remembered: its `exp`, but never past the age bound on `iat`. */
const LIFETIMES: ReadonlyArray<[name: string, lifetimeS: number, acceptableS: number]> = [
  ['a token valid two minutes', TOKEN_LIFETIME_S, TOKEN_LIFETIME_S + LOGOUT_TOKEN_CLOCK_SKEW_S],
  ['a token valid 23 hours', LONG_LIFETIME_S, LOGOUT_TOKEN_MAX_AGE_S + LOGOUT_TOKEN_CLOCK_SKEW_S],
];

/** A replay-record store, and how to let time pass for it and for the adapter's clock at once. */
interface Records {
  store: SessionStore;
  elapse(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Each store the replay records may live in; undefined where it cannot run here. */
const stores: Array<[string, ((clock: FixedClock) => Promise<Records>) | undefined]> = [
  [
    'in memory',
    async (clock) => {
      const store = new MemorySessionStore({
        maxEntries: 100,
        clock,
        refuseWhenFull: { setting: 'MaxReplayRecords', logger: new RecordingLogger() },
      });
      return { store, elapse: async (ms) => clock.advance(ms), close: () => store.close() };
    },
  ],
  [
    'on Redis',
    redisUrl === ''
      ? undefined
      : async (clock) => {
          const prefix = `gatehouse-test:${randomUUID()}:`;
          const store = new RedisSessionStore({
            connection: { topology: { mode: 'Standalone', url: redisUrl } },
            waitForReplica: false,
            keyPrefix: prefix,
            commandTimeoutMs: 1_000,
            logger: new RecordingLogger(),
          });
          await store.connect();
          const server = { primaryPorts: async () => [Number(new URL(redisUrl).port || 6379)], clientOptions: {} };
          return {
            store,
            // Redis keeps its own time: each record's time-to-live is shortened by as much.
            elapse: async (ms) => {
              clock.advance(ms);
              await shortenTimesToLive(server, prefix, ms);
            },
            close: () => store.close(),
          };
        },
  ],
];

/**
 * A back-channel logout token is used once for as long as it is acceptable (its `exp`
 * plus the clock skew, and never longer than the age bound past its `iat`): its `jti`
 * record must last that long, not a moment, and no longer (a provider's day-long tokens
 * must not keep a record each for a day). Replayed after most of that time has passed (the
 * adapter's clock and the store's time both driven), it is refused as a replay; past it,
 * as expired.
 */
describe('a back-channel logout token’s replay record lasts as long as the token is acceptable', function () {
  this.timeout(20_000);
  const providerKey = signingKey();
  let idp: DemoIdentityProvider;

  before(async () => {
    idp = await startIdentityProvider(['http://127.0.0.1:1'], providerKey);
  });
  after(async () => {
    await idp.close();
  });

  for (const [name, open] of stores) {
    if (open === undefined) {
      it.skip(`${name} (skipped: REDIS_URL is not set)`);
      continue;
    }

    for (const [tokenName, lifetimeS, acceptableS] of LIFETIMES)
      it(`${name}, ${tokenName}: a replay near the end of its acceptance is refused as a replay, and after it as expired`, async () => {
        const clock = new FixedClock(Date.now());
        const records = await open(clock);
        try {
          const provider: IdentityProvider = await adapterOf(
            openIdConnect,
            {
              Authority: idp.issuer,
              ClientId: 'gatehouse-test',
              ClientSecret: CLIENT_SECRET,
              BackchannelLogoutPath: '/backchannel-logout-oidc',
            },
            { clock, replayRecords: records.store },
          );
          const iat = Math.floor(clock.now() / 1000);
          const token = await signLogoutToken(providerKey, {
            issuer: idp.issuer,
            audience: 'gatehouse-test',
            claims: { sub: 'admin', iat, exp: iat + lifetimeS },
          });
          const receiveLogout = provider.receiveLogout?.bind(provider) ?? expect.fail('back-channel logout is off');
          const receive = () =>
            receiveLogout(
              {
                method: 'POST',
                url: new URL('http://127.0.0.1:1/backchannel-logout-oidc'),
                form: new URLSearchParams({ logout_token: token }),
              },
              logoutEndpointOf(provider, 'back'),
            ).then(
              (logout) => logout.kind,
              (error: unknown) => (isGatehouseError(error) ? error.code : String(error)),
            );
          const acceptableMs = acceptableS * 1000;

          expect(await receive(), 'first use').to.equal('request');
          await records.elapse(acceptableMs - 5_000);
          expect(await receive(), '5 s before the token stops being acceptable').to.equal('idp.logout_token_replayed');
          await records.elapse(5_000);
          expect(await receive(), 'once it is no longer acceptable').to.equal('idp.logout_token_expired');
        } finally {
          await records.close();
        }
      });
  }
});
