/**
 * Heap cost of one idle signed-in session in MemorySessionStore, so that
 * `ProjectTemplate:Session:MaxSessions` can be sized from a memory budget.
 *
 *   node --expose-gc --import tsx scripts/measure-session-memory.ts [count]
 *
 * Keys and records are built the way the application builds them (a hex SHA-256 of a
 * random cookie token; a principal with eight claims, an anti-forgery token and two
 * timestamps), because a synthetic short key or a shared string would flatter the result.
 */
import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase64urlNoPadding, encodeHexLowerCase } from '@oslojs/encoding';
import { randomBytes } from 'node:crypto';
import { MemorySessionStore } from '../src/adapters/session/memory-session-store.js';
import { encodeRecord } from '../src/adapters/session/record-json.js';
import type { StoredRecord } from '../src/application/ports/session-store.js';

const count = Number(process.argv[2] ?? 100_000);
const gc = globalThis.gc;
if (gc === undefined) {
  console.error('Run with: node --expose-gc --import tsx scripts/measure-session-memory.ts');
  process.exit(2);
}

function token(bytes: number): string {
  return encodeBase64urlNoPadding(randomBytes(bytes));
}

function sessionKey(): string {
  return encodeHexLowerCase(sha256(randomBytes(32)));
}

function sessionRecord(index: number, now: number): StoredRecord {
  return {
    principal: {
      scheme: 'OpenIdConnect',
      claims: {
        sub: token(16),
        name: `Person ${index}`,
        email: `person.${index}@example.com`,
        email_verified: 'true',
        role: index % 10 === 0 ? ['User', 'Administrator'] : ['User'],
        'application:permission': ['application.read'],
        idp: 'https://login.example.com',
        tenant: 'example',
      },
    },
    csrfToken: token(32),
    createdAt: now - (index % 3600) * 1000,
    lastSeenAt: now,
  };
}

function heapUsed(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const clock = { now: () => Date.now() };
const store = new MemorySessionStore({ maxEntries: count, clock });
const sample = encodeRecord(sessionRecord(1, clock.now()));

const before = heapUsed();
const now = clock.now();
for (let index = 0; index < count; index++) {
  await store.set(sessionKey(), sessionRecord(index, now), 20 * 60 * 1000);
}
const after = heapUsed();

console.log(
  JSON.stringify({
    sessions: store.size,
    recordJsonBytes: sample.length,
    heapBytesPerSession: Math.round((after - before) / count),
    heapMiBTotal: Math.round(((after - before) / 2 ** 20) * 10) / 10,
  }),
);
