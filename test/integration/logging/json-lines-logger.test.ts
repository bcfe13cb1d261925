import { expect } from 'chai';
import { projectTemplateSchema, secretKeyPaths } from '../../../src/adapters/config/schema.js';
import { createJsonLinesLogger } from '../../../src/adapters/logging/json-lines-logger.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { redactUrl, secretScrubber } from '../../../src/adapters/logging/redaction.js';
import type { LoggingSettings } from '../../../src/domain/settings/settings.js';

function capture(secretValues: string[] = [], level: LoggingSettings['Level'] = 'debug') {
  const lines: string[] = [];
  const logger = createJsonLinesLogger({
    level,
    secretValues,
    secretKeyPaths: secretKeyPaths(projectTemplateSchema(builtInProviders)),
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { logger, text: () => lines.join('') };
}

describe('log lines', () => {
  it("writes one JSON object per line in pino's shape: level number, time, the fields, msg", () => {
    const { logger, text } = capture();
    const before = Date.now();
    logger.warn({ key: 'ProjectTemplate:Session:Store', count: 2 }, 'a "quoted" message');
    logger.info({}, 'no fields');
    const lines = text().split('\n');
    expect(lines).to.have.length(3);
    expect(lines[2]).to.equal('');
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(first)).to.deep.equal(['level', 'time', 'key', 'count', 'msg']);
    expect(first).to.include({ level: 40, key: 'ProjectTemplate:Session:Store', count: 2, msg: 'a "quoted" message' });
    expect(first.time).to.be.within(before, Date.now());
    expect(JSON.parse(lines[1]!)).to.include({ level: 30, msg: 'no fields' });
  });

  it('writes only lines at or above the configured level, and none when silent', () => {
    const atWarn = capture([], 'warn');
    atWarn.logger.debug({}, 'd');
    atWarn.logger.info({}, 'i');
    atWarn.logger.warn({}, 'w');
    atWarn.logger.error({}, 'e');
    expect(atWarn.text().match(/"msg":"\w"/g)).to.deep.equal(['"msg":"w"', '"msg":"e"']);
    const silent = capture([], 'silent');
    silent.logger.error({}, 'e');
    expect(silent.text()).to.equal('');
  });

  it("leaves the caller's fields as they were", () => {
    const { logger } = capture();
    const fields = { headers: { cookie: 'S1', accept: 'text/html' }, err: new Error('boom') };
    logger.error(fields, 'line');
    expect(fields.headers.cookie).to.equal('S1');
    expect(fields.err).to.be.instanceOf(Error);
  });

  it('still writes the line when its fields cannot be written as JSON', () => {
    const { logger, text } = capture();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    logger.error({ circular, big: 1n }, 'what happened');
    expect(JSON.parse(text())).to.include({ level: 50, msg: 'what happened', logFields: 'not serializable as JSON' });
  });
});

describe('logging with redaction', () => {
  it('redacts the carriers of secrets by path, keeping Gatehouse error codes', () => {
    const { logger, text } = capture();
    logger.info(
      {
        code: 'idp.flow_missing',
        headers: { cookie: 'S1', authorization: 'S2', 'set-cookie': 'S3' },
        query: { code: 'S4', state: 'S5' },
        body: { SAMLResponse: 'S6', password: 'S7' },
        access_token: 'S8',
        tokens: { refreshToken: 'S9' },
        settings: {
          Authentication: { Providers: { OpenIdConnect: { ClientSecret: 'S10' } } },
          Session: { Redis: { Url: 'S11' }, Keys: ['S12'] },
        },
      },
      'line',
    );
    expect(text()).to.contain('"code":"idp.flow_missing"');
    for (let i = 1; i <= 12; i++) expect(text()).not.to.match(new RegExp(`"S${i}"`));
  });

  it('scrubs configured secret values wherever they appear, raw or JSON-escaped', () => {
    const { logger, text } = capture(['SENTINEL-secret"quoted', 'another-SENTINEL']);
    logger.warn(
      { note: 'contains SENTINEL-secret"quoted here', nested: { deep: ['another-SENTINEL'] } },
      'message with another-SENTINEL',
    );
    expect(text()).not.to.contain('SENTINEL');
    expect(text()).to.contain('[REDACTED]');
  });

  it('scrubs secrets learned after the start (a connection file read) from every later line', () => {
    const { logger, text } = capture(['SENTINEL-configured']);
    logger.info({ note: 'SENTINEL-learned-1 SENTINEL-configured' }, 'before');
    logger.learnSecrets(['SENTINEL-learned-1']);
    logger.info({ note: 'SENTINEL-learned-1 SENTINEL-configured' }, 'after one');
    logger.learnSecrets(['SENTINEL-learned-2', 'SENTINEL-learned-3']);
    logger.info({ note: 'SENTINEL-learned-3 SENTINEL-learned-2 SENTINEL-learned-1' }, 'after three');
    const [before, afterOne, afterThree] = text().split('\n');
    expect(before).to.contain('SENTINEL-learned-1').and.not.contain('SENTINEL-configured');
    expect(afterOne).not.to.contain('SENTINEL');
    expect(afterThree).not.to.contain('SENTINEL');
  });

  // Up to 16 needles (a secret and its JSON-escaped spelling each) are searched one by one,
  // more all at once: each way on every placement, letter case and escaping.
  for (const count of [3, 200]) {
    describe(`scrubbing ${count} secrets from a line`, () => {
      const secrets = Array.from({ length: count }, (_, index) => `SENTINEL-${index}-${'x'.repeat(index % 30)}"q`);
      const scrub = secretScrubber(secrets);
      const last = secrets[count - 1] ?? '';
      const escaped = JSON.stringify(last).slice(1, -1);

      it('scrubs one at the start, in the middle and at the end, raw or JSON-escaped', () => {
        for (const line of [`${last} after`, `before ${last} after`, `before ${last}`, last, `{"a":"${escaped}"}`]) {
          expect(scrub(line), line).not.to.contain('SENTINEL');
          expect(scrub(line)).to.contain('[REDACTED]');
        }
      });

      it('scrubs several in one line, and one whose first characters another shares', () => {
        const line = `${secrets[0]} and ${last}, ${secrets[1]}`;
        expect(scrub(line)).to.equal('[REDACTED] and [REDACTED], [REDACTED]');
      });

      it('leaves a line without any as it is: short, long, or holding a secret but for its last character', () => {
        for (const line of [
          '',
          'abc',
          'SENTIN',
          '{"level":30,"msg":"request"}',
          last.slice(0, -1),
          `x${last.slice(1)}`,
        ])
          expect(scrub(line), line).to.equal(line);
      });
    });
  }

  it('logs errors by name, message and code, never their cause', () => {
    const { logger, text } = capture();
    const error = Object.assign(new Error('token exchange failed', { cause: { body: 'S-CAUSE' } }), {
      code: 'OAUTH_RESPONSE_BODY_ERROR',
      response: 'S-RESPONSE',
    });
    logger.error({ err: error }, 'failed');
    expect(text()).to.contain('OAUTH_RESPONSE_BODY_ERROR').and.contain('token exchange failed');
    expect(text()).not.to.contain('S-CAUSE');
    expect(text()).not.to.contain('S-RESPONSE');
  });

  const urls: Array<[string, string]> = [
    ['/signin-oidc?code=abc&state=def&iss=x', '/signin-oidc?code=[REDACTED]&state=[REDACTED]&iss=[REDACTED]'],
    [
      '/External/Challenge?provider=OpenIdConnect&returnUrl=%2Fa',
      '/External/Challenge?provider=OpenIdConnect&returnUrl=%2Fa',
    ],
    ['/Saml2/Acs?SAMLResponse=PHNhbWw%2B&RelayState=r', '/Saml2/Acs?SAMLResponse=[REDACTED]&RelayState=[REDACTED]'],
    ['/cb?error=access_denied&error_description=secret%20text', '/cb?error=access_denied&error_description=[REDACTED]'],
    ['/plain', '/plain'],
    [
      '/Account/Login?returnUrl=%2Freset%3Ftoken%3DSENTINEL%26lang%3Den',
      '/Account/Login?returnUrl=%2Freset%3Ftoken%3D%5BREDACTED%5D%26lang%3D%5BREDACTED%5D',
    ],
    [
      '/External/Challenge?provider=OpenIdConnect&returnUrl=%2Fback%3FreturnUrl%3D%252Fx%253Fkey%253DS',
      '/External/Challenge?provider=OpenIdConnect&returnUrl=%2Fback%3FreturnUrl%3D%5BREDACTED%5D',
    ],
    ['/Account/Login?returnUrl=%E0%A4%A', '/Account/Login?returnUrl=[REDACTED]'],
  ];
  for (const [url, expected] of urls) {
    it(`logs ${url} as ${expected}`, () => expect(redactUrl(url)).to.equal(expected));
  }
});
