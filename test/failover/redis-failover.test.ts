import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { sessionStoreKey } from '../../src/adapters/koa/session/session-token.js';
import type { RedisSessionStore } from '../../src/adapters/session/redis-session-store.js';
import { adminClaims, plainClaims } from '../support/sign-in.js';
import { COMMAND_TIMEOUT_MS, deployments, DETECTION_MS, user } from './deployments.js';
import {
  askAdminApi,
  killedNodesRestartedAfterEach,
  logout,
  signInOn,
  startInstances,
  stopInstances,
  testStore,
  underLoad,
  unavailableWindow,
  type FailoverSubject,
  type Instance,
} from './failover-harness.js';

for (const [name, start] of deployments) {
  describe(`Failover of ${name} under two Gatehouse instances`, function () {
    this.timeout(60_000);
    const prefix = `gatehouse-failover:${randomUUID()}:`;
    let deployment: { subject: FailoverSubject; stop(): Promise<void> };
    let subject: FailoverSubject;
    let instances: Instance[];
    let store: RedisSessionStore;
    const killed = killedNodesRestartedAfterEach(() => subject);

    before(async function () {
      this.timeout(90_000);
      deployment = await start();
      subject = deployment.subject;
      instances = await startInstances({
        ProjectTemplate__Session__Store: 'Redis',
        ...subject.gatehouseEnv(),
        ProjectTemplate__Session__Redis__Username: user.username,
        ProjectTemplate__Session__Redis__Password: user.password,
        ProjectTemplate__Session__Redis__KeyPrefix: prefix,
        ProjectTemplate__Session__Redis__CommandTimeoutMs: String(COMMAND_TIMEOUT_MS),
      });
      store = testStore(subject, prefix);
      await store.connect();
    });

    after(async function () {
      await store?.close();
      const exits = instances ? await stopInstances(instances) : [];
      await deployment?.stop();
      expect(exits, 'each instance stops cleanly on SIGTERM').to.deep.equal(exits.map(() => 0));
      for (const instance of instances ?? []) {
        const { stdout, stderr } = instance.output();
        for (const secret of subject.secrets)
          expect(stdout + stderr, `instance ${instance.name}`).to.not.include(secret);
      }
    });

    it('answers 503 fast while the primary of a signed-in session is replaced, then serves the same users again by itself', async function () {
      const alice = await signInOn(store, prefix, subject, adminClaims, undefined);
      const target = await subject.primaryOf(prefix + sessionStoreKey(alice.token));
      const bob = await signInOn(store, prefix, subject, plainClaims, undefined);
      // A logout accepted before the failover, of a session on the primary that is killed.
      const carol = await signInOn(store, prefix, subject, adminClaims, target);
      const [a, b] = instances as [Instance, Instance];
      expect((await askAdminApi(b, carol)).status).to.equal(200);
      expect((await logout(a, carol)).status, 'the logout is accepted').to.equal(302);

      killed.add(target);
      const { requests, readiness } = await underLoad(instances, { alice, bob }, () => target.kill(), {
        settled: 20,
        minimumMs: 2_000,
        deadlineMs: 40_000,
      });
      // Answered before the kill; those in flight as it came count as after it.
      const before = requests.filter((sample) => sample.at + sample.ms <= 0);
      const after = requests.filter((sample) => sample.at + sample.ms > 0);
      expect([...new Set(before.map((s) => `${s.who} ${s.status}`))].sort(), 'before the kill').to.deep.equal([
        'alice 200',
        'bob 403',
      ]);

      // Never another user's answer, never signed out half-way: alice is an administrator
      // (200), bob is not (403); while the store cannot answer, 503 and nothing else.
      for (const sample of after) {
        const expected = sample.who === 'alice' ? 200 : 403;
        expect([expected, 503], JSON.stringify(sample)).to.include(sample.status);
        if (sample.status === 503) {
          expect(sample.code, JSON.stringify(sample)).to.equal('session.store_unavailable');
          expect(sample.ms, `a 503 comes fast: ${JSON.stringify(sample)}`).to.be.below(COMMAND_TIMEOUT_MS + 500);
        }
      }
      const aliceAfter = after.filter((sample) => sample.who === 'alice');
      expect(
        aliceAfter.some((sample) => sample.status === 503),
        'the killed primary held alice’s session',
      ).to.equal(true);
      for (const instance of instances) {
        const own = aliceAfter.filter((sample) => sample.instance === instance.name);
        expect(own.at(-1)?.status, `alice is signed in again on ${instance.name}, by itself`).to.equal(200);
        const probes = readiness.filter((sample) => sample.instance === instance.name && sample.at + sample.ms > 0);
        expect(
          probes.some((probe) => probe.status === 503),
          `readiness of ${instance.name} went down`,
        ).to.equal(true);
        expect(probes.at(-1)?.status, `readiness of ${instance.name} came back`).to.equal(200);
        expect(instance.child.exitCode, `instance ${instance.name} still runs`).to.equal(null);
      }
      for (const instance of instances)
        expect((await askAdminApi(instance, carol)).status, `carol’s logout held on ${instance.name}`).to.equal(401);

      const window = unavailableWindow(aliceAfter);
      const ready = unavailableWindow(
        readiness.map((probe) => ({ ...probe, status: probe.status === 200 ? 200 : 503 })),
      );
      const slowest503 = Math.round(Math.max(...after.filter((s) => s.status === 503).map((s) => s.ms)));
      console.log(
        `      measured (${name}, detection ${DETECTION_MS} ms): 503s from ${window.from} to ${window.to} ms after the kill (${window.ms} ms); readiness down from ${ready.from} to ${ready.to} ms; slowest 503 ${slowest503} ms; ${after.length} requests after the kill, ${after.filter((s) => s.status === 503).length} answered 503`,
      );

      // Writes are confirmed again once the killed node is back, as a replica.
      await subject.restart(target);
      killed.delete(target);
      expect((await logout(b, alice)).status).to.equal(302);
      for (const instance of instances) expect((await askAdminApi(instance, alice)).status).to.equal(401);
    });

    it('refuses a logout that no replica received, so that the failover cannot bring the session back after it was accepted', async function () {
      // The session and its sign-in record on the primary that is killed.
      const target = await subject.primaryOf(`${prefix}probe-${randomUUID()}`);
      const dave = await signInOn(store, prefix, subject, adminClaims, target, true);
      const primary = await subject.primaryOf(prefix + sessionStoreKey(dave.token));
      const [a, b] = instances as [Instance, Instance];
      expect((await askAdminApi(b, dave)).status).to.equal(200);

      await subject.cutReplication(primary);
      const refused = await logout(a, dave);
      killed.add(primary);
      await primary.kill();
      // The instances find the new primary by themselves.
      const deadline = Date.now() + 30_000;
      let statuses: number[] = [];
      do {
        statuses = await Promise.all(instances.map(async (instance) => (await askAdminApi(instance, dave)).status));
      } while (statuses.includes(503) && Date.now() < deadline);

      if (refused.status === 302)
        expect(statuses, 'a logout accepted before the failover came back after it').to.deep.equal([401, 401]);
      expect(refused.status, 'a logout no replica confirmed is refused').to.equal(503);
      expect(statuses, 'refused, so still signed in: the same answer on both').to.deep.equal([200, 200]);
    });
  });
}
