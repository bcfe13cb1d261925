import { expect } from 'chai';
import type { Context } from 'koa';
import { scimAnswering } from '../../../../src/adapters/koa/scim/scim-answer.js';
import { GatehouseError } from '../../../../src/domain/errors.js';
import { statusForCode } from '../../../../src/adapters/koa/error-status.js';

/** The parts of a Koa context a SCIM answer sets. */
function answerOf(thrown: unknown) {
  const headers: Record<string, string> = {};
  const ctx = {
    status: 404,
    body: undefined as unknown,
    set: (name: string, value: string) => (headers[name] = value),
  };
  return scimAnswering(ctx as unknown as Context, () => Promise.reject(thrown)).then(() => ({
    status: ctx.status,
    headers,
    body: JSON.parse(String(ctx.body)) as Record<string, unknown>,
  }));
}

describe("scimAnswering: an organization's share of slow searches spent", () => {
  const busy = new GatehouseError('directory.busy', 'searches have used their share for now', {
    safe: true,
    retryAfterMs: 13_860,
  });

  it('answers 429 with Retry-After in whole seconds, as a SCIM error without a scimType', async () => {
    const answer = await answerOf(busy);
    expect(answer.status).to.equal(429);
    expect(answer.headers['retry-after']).to.equal('14');
    expect(answer.body).to.deep.equal({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '429',
      detail: 'searches have used their share for now',
    });
  });

  it('is 429 on the pages too (the people page), where the error handler sends Retry-After', () => {
    expect(statusForCode('directory.busy')).to.equal(429);
  });
});
