import { expect } from 'chai';
import { microsoftErrorDetails } from '../../../src/adapters/microsoft/microsoft-error-details.js';

const TRACE = '0b5c3a2e-1f4d-4e6a-9b7c-8d9e0f1a2b3c';
const CORRELATION = '7e8f9a0b-1c2d-4e3f-8a5b-6c7d8e9f0a1b';

describe('microsoftErrorDetails', () => {
  it("keeps a token error's error_codes, trace_id, correlation_id and timestamp, not its description", () => {
    expect(
      microsoftErrorDetails({
        error: 'invalid_grant',
        error_description: 'AADSTS70008: ... code=SENTINEL',
        error_codes: [70008],
        timestamp: '2026-11-22 10:00:00Z',
        trace_id: TRACE,
        correlation_id: CORRELATION,
        error_uri: 'https://login.microsoftonline.com/error?code=70008',
      }),
    ).to.deep.equal({
      errorCodes: [70008],
      traceId: TRACE,
      correlationId: CORRELATION,
      timestamp: '2026-11-22 10:00:00Z',
    });
  });

  it("keeps a Graph error's code and request-id, not its message", () => {
    expect(
      microsoftErrorDetails({
        error: {
          code: 'InvalidAuthenticationToken',
          message: 'SENTINEL',
          innerError: { date: '2026-11-22T10:00:00', 'request-id': TRACE, 'client-request-id': CORRELATION },
        },
      }),
    ).to.deep.equal({ graphCode: 'InvalidAuthenticationToken', requestId: TRACE });
  });

  it('drops values of another shape: a trace id that is no GUID, codes that are not numbers, a code with spaces', () => {
    expect(
      microsoftErrorDetails({
        error_codes: ['SENTINEL', 1.5],
        trace_id: 'SENTINEL access token',
        error: { code: 'not an identifier', innerError: { 'request-id': 'x' } },
      }),
    ).to.equal(undefined);
    expect(microsoftErrorDetails('SENTINEL')).to.equal(undefined);
    expect(microsoftErrorDetails(null)).to.equal(undefined);
  });
});
