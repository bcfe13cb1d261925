import 'reflect-metadata';
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import {
  ATTEMPT_LIFETIME_MS,
  ATTEMPTS_KEPT,
  SignInAttempts,
  type AttemptReport,
} from '../../../../src/application/connections/sign-in-attempts.js';
import type { SessionStore } from '../../../../src/application/ports/session-store.js';
import { MemorySessionStore } from '../../../../src/adapters/session/memory-session-store.js';
import { ClaimTypes } from '../../../../src/domain/claims/claim-types.js';
import type { Principal } from '../../../../src/domain/claims/principal.js';
import { GatehouseError } from '../../../../src/domain/errors.js';
import { FixedClock } from '../../../support/fixed-clock.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const ACME = { organization: 'acme', connection: 'Acme' };
const GLOBEX = { organization: 'globex', connection: 'Globex' };
/** Sentinels: neither may ever be kept, whatever is kept of the person. */
const ADDRESS = 'SENTINEL.person.4b1d@Mail.Acme.Test';
const SUBJECT = 'SENTINEL-subject-9f2c';

function person(email: string, subject = SUBJECT): Principal {
  return {
    scheme: 'Acme',
    claims: [
      { type: ClaimTypes.Subject, value: subject, issuer: 'Acme' },
      { type: ClaimTypes.Email, value: email, issuer: 'Acme' },
    ],
  };
}

const refused = (code: string, extra: Partial<AttemptReport> = {}): AttemptReport => ({
  outcome: 'refused',
  code,
  ...extra,
});

describe('SignInAttempts: the recent attempts of each connection', () => {
  let clock: FixedClock;
  let store: MemorySessionStore;
  let attempts: SignInAttempts;

  beforeEach(() => {
    clock = new FixedClock();
    store = new MemorySessionStore({ maxEntries: 1000, clock });
    attempts = new SignInAttempts(store, clock, quiet);
  });

  it('keeps the domain, the subject hashed, and the reason in words: never the address or the subject', async () => {
    await attempts.record(
      ACME,
      refused('idp.domain_not_allowed', { principal: person(ADDRESS), domains: ['acme.test'] }),
    );
    await attempts.record(ACME, {
      outcome: 'succeeded',
      principal: person('ada@acme.test', 'ada'),
      domains: ['acme.test'],
    });
    const [passed, refusal] = await attempts.recent(ACME);
    expect(refusal).to.deep.equal({
      at: clock.now(),
      outcome: 'refused',
      code: 'idp.domain_not_allowed',
      reason:
        "The person's e-mail address is not in one of the organization's domains: they must sign in through their own organization.",
      emailDomain: 'mail.acme.test',
      subjectSha256: createHash('sha256').update(SUBJECT).digest('base64url'),
    });
    expect(passed).to.include({ outcome: 'succeeded', emailDomain: 'acme.test' });
    expect(passed).not.to.have.property('code');
    const kept = JSON.stringify(await store.indexMembers(storedIndexKey(store)));
    expect(kept).not.to.include('SENTINEL');
    expect(kept.toLowerCase()).not.to.include('sentinel');
  });

  it('shows the domain outside the connection’s domains, the one a refusal is about', async () => {
    const both: Principal = {
      scheme: 'Acme',
      claims: [
        { type: ClaimTypes.Email, value: 'ada@acme.test', issuer: 'Acme' },
        { type: ClaimTypes.Email, value: 'ada@globex.test', issuer: 'Acme' },
      ],
    };
    await attempts.record(ACME, refused('idp.domain_not_allowed', { principal: both, domains: ['acme.test'] }));
    expect((await attempts.recent(ACME))[0]).to.include({ emailDomain: 'globex.test' });
  });

  it('gives a code the table does not know its refusal’s safe message, one line, and none without one', async () => {
    const error = new GatehouseError(
      'idp.provider_error',
      'The identity provider refused the sign-in (access_denied).\nmore',
    );
    await attempts.record(ACME, refused('idp.provider_error', { safeMessage: error.message }));
    await attempts.record(ACME, refused('idp.something_new'));
    const [unknown, provider] = await attempts.recent(ACME);
    expect(provider).to.include({ reason: 'The identity provider refused the sign-in (access_denied).' });
    expect(unknown).to.deep.equal({ at: clock.now(), outcome: 'refused', code: 'idp.something_new' });
  });

  it('keeps the newest 100 of 150, newest first', async () => {
    for (let n = 0; n < 150; n += 1) {
      clock.advance(1);
      await attempts.record(ACME, refused('idp.flow_missing'));
    }
    const kept = await attempts.recent(ACME);
    expect(kept).to.have.length(ATTEMPTS_KEPT);
    expect(kept[0]!.at).to.equal(clock.now());
    expect(kept.at(-1)!.at).to.equal(clock.now() - 99);
    expect((await store.indexMembers(storedIndexKey(store))).length).to.equal(ATTEMPTS_KEPT);
  });

  it('lets a flood through one connection touch no other connection’s, nor a namesake of another organization', async () => {
    await attempts.record(GLOBEX, refused('idp.email_missing'));
    for (let n = 0; n < 150; n += 1) await attempts.record(ACME, refused('idp.signature_invalid'));
    expect(await attempts.recent(GLOBEX)).to.have.length(1);
    expect(await attempts.recent({ organization: 'globex', connection: 'Acme' })).to.deep.equal([]);
    expect(await attempts.recent({ organization: 'acme', connection: 'ACME' })).to.have.length(100);
  });

  it('forgets an attempt 30 days after it', async () => {
    await attempts.record(ACME, refused('idp.email_missing'));
    clock.advance(ATTEMPT_LIFETIME_MS - 1);
    expect(await attempts.recent(ACME)).to.have.length(1);
    clock.advance(1);
    expect(await attempts.recent(ACME)).to.deep.equal([]);
  });

  it('never fails the sign-in it reports when the store is out of reach', async () => {
    const down = new Proxy(store, {
      get: (target, name) =>
        name === 'addToIndex'
          ? async () => {
              throw new GatehouseError('session.store_unavailable', 'down');
            }
          : Reflect.get(target, name),
    }) as SessionStore;
    const warnings: string[] = [];
    await new SignInAttempts(down, clock, {
      ...quiet,
      warn: (_f: object, message: string) => void warnings.push(message),
    }).record(ACME, refused('idp.email_missing'));
    expect(warnings).to.have.length(1);
  });
});

/** The one index the store holds (each test records into fresh stores). */
function storedIndexKey(store: MemorySessionStore): string {
  const keys = [...(store as unknown as { entries: Map<string, unknown> }).entries.keys()].filter((key) =>
    key.startsWith('sign-in-attempts:'),
  );
  return keys[0] ?? '';
}
