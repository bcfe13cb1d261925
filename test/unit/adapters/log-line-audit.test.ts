import { expect } from 'chai';
import { LogLineAuditLog } from '../../../src/adapters/audit/log-line-audit.js';
import type { AuditEvent } from '../../../src/application/ports/audit-log.js';
import type { Logger } from '../../../src/application/ports/logger.js';
import { FixedClock } from '../../support/fixed-clock.js';

const SENTINEL = 'SENTINEL-token-3f9b1c';

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
