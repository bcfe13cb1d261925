import { expect } from 'chai';
import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { MemorySessionStore } from '../../../../src/adapters/session/memory-session-store.js';
import { PortalSessions } from '../../../../src/application/portal/portal-sessions.js';
import { SetupLinks } from '../../../../src/application/portal/setup-links.js';
import { FixedClock } from '../../../support/fixed-clock.js';
import { RecordingAuditLog } from '../../../support/recording-audit-log.js';
import { WritesRecordingStore } from '../../../support/writes-recording-store.js';
import { STORE_CLOCKS } from './store-clocks.js';

const DAY_MS = 24 * 60 * 60_000;
const STAFF = { id: 'api-key:k1' };
const hex = (token: string) => encodeHexLowerCase(sha256(new TextEncoder().encode(token)));

describe('setup links: their lifetime, their one use, what the store holds and what the audit says', () => {
  for (const { name, store } of STORE_CLOCKS) {
    it(`opens up to its last millisecond and never from its expiry on, on ${name}`, async () => {
      const clock = new FixedClock();
      const audit = new RecordingAuditLog();
      const links = new SetupLinks(store(clock), audit, () => clock.now());
      const early = await links.create('acme', 'acme', 2, STAFF);
      const late = await links.create('acme', 'acme', 2, STAFF);

      await clock.sleep(2 * DAY_MS - 1);
      expect((await links.peek(early.token))?.id, 'its page, a millisecond before').to.equal(early.link.id);
      expect((await links.open(early.token))?.id, 'its button, a millisecond before').to.equal(early.link.id);

      await clock.sleep(1);
      expect(await links.peek(late.token), 'its page, at its expiry').to.equal(undefined);
      expect(await links.open(late.token), 'its button, at its expiry').to.equal(undefined);
      expect(audit.ofType('setup_link.used').map((event) => event.link)).to.deep.equal([early.link.id]);
    });
  }

  it('keeps only the SHA-256 of the link token, and of the portal session token it opens', async () => {
    const clock = new FixedClock();
    const store = new WritesRecordingStore(new MemorySessionStore({ maxEntries: 100, clock }));
    const links = new SetupLinks(store, new RecordingAuditLog(), () => clock.now());
    const sessions = new PortalSessions(store, () => clock.now());
    const { token } = await links.create('acme', 'acme', 7, STAFF);
    const link = await links.open(token);
    expect(link).not.to.equal(undefined);
    const started = await sessions.start(link!);
    await clock.sleep(2 * 60_000);
    // A write after the start (the idle clock moved, a step kept): still no token.
    expect(await sessions.load(started.token)).not.to.equal(undefined);
    expect(await sessions.update(started.token, { ...started.session, vendor: 'okta' })).to.equal(true);

    expect(store.writes.map(({ key }) => key)).to.include(`setup-link:${hex(token)}`);
    expect(store.writes.map(({ key }) => key)).to.include(`portal:${hex(started.token)}`);
    expect(store.writes.length).to.be.greaterThan(3);
    expect(store.holds(token), 'the link token, in a key or a record').to.equal(false);
    expect(store.holds(started.token), 'the portal session token, in a key or a record').to.equal(false);
  });

  it('audits its use, once, and its revocation, by its own organization only', async () => {
    const clock = new FixedClock();
    const audit = new RecordingAuditLog();
    const links = new SetupLinks(new MemorySessionStore({ maxEntries: 100, clock }), audit, () => clock.now());
    const request = { id: 'request-1', clientAddress: '203.0.113.7' };

    const used = await links.create('acme', 'acme-sso', 7, STAFF);
    await links.open(used.token, request);
    expect(await links.open(used.token, request), 'spent').to.equal(undefined);
    expect(audit.ofType('setup_link.used')).to.deep.equal([
      { type: 'setup_link.used', request, organization: 'acme', connection: 'acme-sso', link: used.link.id },
    ]);

    const revoked = await links.create('acme', 'acme-sso', 7, STAFF);
    expect(await links.revoke('globex', revoked.link.id, { id: 'api-key:k2' }), "not globex's").to.equal(false);
    expect(audit.ofType('setup_link.revoked')).to.deep.equal([]);
    expect(await links.revoke('acme', revoked.link.id, { id: 'api-key:k2', request })).to.equal(true);
    expect(await links.revoke('acme', revoked.link.id, { id: 'api-key:k2', request }), 'revoked once').to.equal(false);
    expect(audit.ofType('setup_link.revoked')).to.deep.equal([
      { type: 'setup_link.revoked', request, actor: 'api-key:k2', organization: 'acme', link: revoked.link.id },
    ]);
    expect(await links.open(revoked.token), 'a revoked link opens nothing').to.equal(undefined);
    expect(audit.ofType('setup_link.used')).to.have.length(1);
  });
});
