import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { AUDIT_SUBJECT_MAX_LENGTH, LogLineAuditLog } from '../../../src/adapters/audit/log-line-audit.js';
import { AUDIT_EVENT_TYPES, type AuditEvent } from '../../../src/application/ports/audit-log.js';
import type { Logger } from '../../../src/application/ports/logger.js';
import { FixedClock } from '../../support/fixed-clock.js';

const SENTINEL = 'SENTINEL-token-3f9b1c';

/** SHA-256 as base64url, by node's own implementation (the adapter uses oslo's). */
const sha256Base64url = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');

/** What each field of a line may hold: the allow-list, with each field's bound. */
const isText = (max: number) => (value: unknown) =>
  typeof value === 'string' && value.length > 0 && value.length <= max;
const ALLOWED: Record<string, (value: unknown) => boolean> = {
  audit: (value) => value === true,
  event: (value) => typeof value === 'string' && [...AUDIT_EVENT_TYPES, 'unknown'].includes(value),
  at: (value) => value === '2026-11-25T12:00:00.000Z',
  reqId: isText(64),
  client: isText(64),
  provider: isText(64),
  subject: isText(AUDIT_SUBJECT_MAX_LENGTH),
  subjectSha256: (value) => typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value),
  session: isText(64),
  code: (value) => typeof value === 'string' && value.length <= 64 && /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/.test(value),
  by: (value) => typeof value === 'string' && /^[a-z][a-z_]{0,39}$/.test(value),
  cause: (value) => typeof value === 'string' && /^[a-z][a-z_]{0,39}$/.test(value),
  count: (value) => Number.isSafeInteger(value) && Number(value) >= 0,
  policies: (value) => Array.isArray(value) && value.length <= 16 && value.every(isText(128)),
};

/** Values no field should pass on as they are: long, control characters, objects, arrays, odd numbers, a prototype. */
const HOSTILE: Array<[string, unknown]> = [
  ['a long string', `${'x'.repeat(10_000)}${SENTINEL}`],
  ['control characters', `\u0000\r\n\u001b[31m{"audit":false}\u2028${SENTINEL}`],
  ['an object', { toString: () => SENTINEL, toJSON: () => SENTINEL, value: SENTINEL }],
  ['an array', [SENTINEL, { token: SENTINEL }, 'x'.repeat(10_000), ...Array.from({ length: 1_000 }, () => 'p')]],
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['a negative number', -7],
  ['a fraction', 1.5],
  ['a huge number', 1e300],
  ['a boolean', true],
  ['null', null],
  ['a prototype', JSON.parse(`{"__proto__":{"polluted":"${SENTINEL}","id":"${SENTINEL}","type":"signout"}}`)],
];

/** Every field an event may carry, the request's own, and fields it may not carry. */
const FIELDS = [
  'type',
  'provider',
  'subject',
  'session',
  'code',
  'by',
  'count',
  'cause',
  'policies',
  'request',
  'request.id',
  'request.clientAddress',
  'request.cookie',
  'accessToken',
  'message',
  '__proto__',
];

/** A well-formed event of `type`, every field set. */
function wellFormed(type: string): Record<string, unknown> {
  return {
    type,
    request: { id: 'req-1', clientAddress: '192.0.2.7' },
    provider: 'Saml2',
    subject: 'user@example.com',
    session: 'AbCdEfGhIjKlMnOp',
    code: 'idp.assertion_replayed',
    by: 'provider',
    count: 2,
    cause: 'provider_logout',
    policies: ['application.Role.Administrator'],
  };
}

/** The event with `value` at `path` (`request.id`), set as an own property even for `__proto__`. */
function withField(event: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head = '', tail] = path.split('.');
  const copy = { ...event };
  if (tail === undefined) Object.defineProperty(copy, head, { value, enumerable: true, writable: true });
  else copy[head] = withField({ ...(copy[head] as Record<string, unknown>) }, tail, value);
  return copy;
}

function capture() {
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const logger: Logger = {
    debug() {},
    info: (fields, message) => void lines.push({ fields: fields as Record<string, unknown>, message }),
    warn: (fields, message) => void lines.push({ fields: fields as Record<string, unknown>, message }),
    error() {},
  };
  return { lines, audit: new LogLineAuditLog(logger, new FixedClock(Date.UTC(2026, 10, 25, 12, 0, 0))) };
}

describe('LogLineAuditLog (audit events as log lines)', () => {
  it('writes the event with its UTC time, marked as audit', () => {
    const { lines, audit } = capture();
    audit.record({
      type: 'sessions.ended',
      request: { id: 'abc-1', clientAddress: '192.0.2.7' },
      provider: 'OpenIdConnect',
      subject: 'u1',
      count: 3,
      cause: 'sign_out_everywhere',
      by: 'user',
    });
    expect(lines).to.deep.equal([
      {
        message: 'audit',
        fields: {
          audit: true,
          event: 'sessions.ended',
          at: '2026-11-25T12:00:00.000Z',
          reqId: 'abc-1',
          client: '192.0.2.7',
          provider: 'OpenIdConnect',
          subject: 'u1',
          subjectSha256: sha256Base64url('u1'),
          count: 3,
          cause: 'sign_out_everywhere',
          by: 'user',
        },
      },
    ]);
  });

  it('carries only allow-listed fields, each narrowed: nothing else of the event object reaches the line', () => {
    const { lines, audit } = capture();
    const hostile = {
      type: 'signin.failed',
      code: `https://evil.example/?token=${SENTINEL}`,
      cause: `${SENTINEL} spaces`,
      by: 'user; drop',
      count: 1.5,
      accessToken: SENTINEL,
      request: { id: 'r', clientAddress: '198.51.100.1', cookie: SENTINEL },
    } as unknown as AuditEvent;
    audit.record(hostile);
    expect(JSON.stringify(lines)).not.to.contain(SENTINEL);
    expect(lines[0]?.fields).to.deep.equal({
      audit: true,
      event: 'signin.failed',
      at: '2026-11-25T12:00:00.000Z',
      reqId: 'r',
      client: '198.51.100.1',
    });
  });

  it('every event type, with a hostile value in any field, yields only allow-listed fields, each within its bound', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const type of [...AUDIT_EVENT_TYPES, `${SENTINEL}.type`]) {
      for (const field of FIELDS) {
        for (const [label, value] of HOSTILE) {
          const { lines, audit } = capture();
          audit.record(withField(wellFormed(type), field, value) as unknown as AuditEvent);
          const where = `${type}, ${field} = ${label}`;
          const [line] = lines;
          if (lines.length !== 1 || line?.message !== 'audit') {
            problems.push(`${where}: not one audit line`);
            continue;
          }
          const fields = line.fields;
          if (Object.getPrototypeOf(fields) !== Object.prototype) problems.push(`${where}: not a plain object`);
          for (const [name, written] of Object.entries(fields)) {
            const allowed = Object.hasOwn(ALLOWED, name) ? ALLOWED[name] : undefined;
            if (!allowed) problems.push(`${where}: field ${JSON.stringify(name)} is not allow-listed`);
            else if (!allowed(written))
              problems.push(`${where}: ${name} = ${String(JSON.stringify(written)).slice(0, 120)}`);
          }
          const text = JSON.stringify(fields);
          // A sentinel survives only as a short string in a field that may hold one: a
          // subject with control characters (JSON escapes them), a policy name in a list.
          const mayCarry = label === 'control characters' || (label === 'an array' && field === 'policies');
          if (!mayCarry && text.includes(SENTINEL)) problems.push(`${where}: the sentinel reached the line`);
          if (text.length > 4_096) problems.push(`${where}: a line of ${text.length} characters`);
          checked += 1;
        }
      }
    }
    expect(problems).to.deep.equal([]);
    expect(({} as Record<string, unknown>).polluted, 'no prototype was changed').to.equal(undefined);
    expect(checked).to.equal((AUDIT_EVENT_TYPES.length + 1) * FIELDS.length * HOSTILE.length);
  });

  it('keeps the hash of the whole subject beside the cut one: two long subjects that share their first 256 characters stay apart', () => {
    const { lines, audit } = capture();
    const shared = 'CN=' + 'a'.repeat(AUDIT_SUBJECT_MAX_LENGTH);
    for (const subject of [`${shared}-first`, `${shared}-second`, 'short'])
      audit.record({ type: 'signin.succeeded', provider: 'Saml2', subject });
    const [first, second, short] = lines.map((line) => line.fields);
    expect(first?.subject).to.equal(shared.slice(0, AUDIT_SUBJECT_MAX_LENGTH));
    expect(second?.subject, 'the cut values look the same').to.equal(first?.subject);
    expect(first?.subjectSha256).to.equal(sha256Base64url(`${shared}-first`));
    expect(second?.subjectSha256).to.equal(sha256Base64url(`${shared}-second`));
    expect(short).to.include({ subject: 'short', subjectSha256: sha256Base64url('short') });
  });

  it('never throws into the request: an event it cannot write is dropped with a warning', () => {
    const failing: Logger = {
      debug() {},
      info() {
        throw new Error('the destination is gone');
      },
      warn() {},
      error() {},
    };
    const audit = new LogLineAuditLog(failing, new FixedClock());
    expect(() => audit.record({ type: 'signout', by: 'user' })).not.to.throw();
  });
});
