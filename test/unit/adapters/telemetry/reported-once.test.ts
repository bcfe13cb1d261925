import { expect } from 'chai';
import { reportedOnce } from '../../../../src/adapters/telemetry/reported-once.js';
import { errorType } from '../../../../src/adapters/telemetry/otel-telemetry.js';

describe('reportedOnce: an exporter that fails', () => {
  it('is one warning per episode of failures, and one line when it works again', () => {
    const lines: string[] = [];
    const logger = {
      debug: () => undefined,
      info: (_fields: object, message: string) => void lines.push(`info ${message}`),
      warn: (fields: object, message: string) => void lines.push(`warn ${message} ${JSON.stringify(fields)}`),
      error: () => undefined,
    };
    const report = reportedOnce(logger, 'traces');
    report(false);
    const secret = new Error('POST http://user:SENTINEL-password@collector:4318 refused');
    report(true, secret);
    report(true, secret);
    report(true);
    report(false);
    report(false);
    report(true, new TypeError('again'));
    expect(lines).to.deep.equal([
      'warn telemetry: exporting traces failed; they are dropped until the endpoint answers (reported once) {"signal":"traces","error":"Error"}',
      'info telemetry: exporting traces works again',
      'warn telemetry: exporting traces failed; they are dropped until the endpoint answers (reported once) {"signal":"traces","error":"TypeError"}',
    ]);
  });
});

describe('errorType: what a failed call is counted as', () => {
  const cases: Array<[string, unknown, string]> = [
    [
      'a stable code',
      Object.assign(new Error('x'), { code: 'session.store_unavailable' }),
      'session.store_unavailable',
    ],
    ['a code that is no stable code (a system code)', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'Error'],
    ['an error without a code, by its class', new TypeError('fetch failed http://secret'), 'TypeError'],
    ['something thrown that is no error', 'a string with a token', 'unknown'],
  ];
  for (const [name, error, type] of cases) it(name, () => expect(errorType(error)).to.equal(type));
});
