import { expect } from 'chai';
import { projectTemplateSchema, secretKeyPaths } from '../../../src/adapters/config/schema.js';
import { createJsonLinesLogger } from '../../../src/adapters/logging/json-lines-logger.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { redactUrl } from '../../../src/adapters/logging/redaction.js';
import { SHORTEST_CONTAINED_SECRET, secretValueRedactor } from '../../../src/adapters/logging/secret-values.js';
import type { Logger } from '../../../src/application/ports/logger.js';
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

  it('redacts configured secret values wherever they appear: a field, a nested one, a key, the message, an error', () => {
    const { logger, text } = capture(['SENTINEL-secret"quoted', 'another-SENTINEL']);
    logger.warn(
      {
        note: 'contains SENTINEL-secret"quoted here',
        nested: { deep: ['another-SENTINEL'] },
        'key-another-SENTINEL': 1,
        err: new Error('failed with another-SENTINEL'),
      },
      'message with another-SENTINEL',
    );
    expect(text()).not.to.contain('SENTINEL');
    const line = JSON.parse(text()) as Record<string, unknown>;
    expect(line).to.deep.include({
      note: 'contains [REDACTED] here',
      nested: { deep: ['[REDACTED]'] },
      'key-[REDACTED]': 1,
      msg: 'message with [REDACTED]',
    });
    expect(line.err).to.include({ message: 'failed with [REDACTED]' });
  });

  // What a customer writes as a connection's ClientSecret, chosen to break the log.
  const hostileSecrets = [
    '"audit":true',
    '{"SENTINEL":1}',
    '"SENTINEL\\"\\',
    '","msg":"SENTINEL-forged","x":"',
    'SENTINEL"}\n{"level":60,"audit":true',
    '\\u0022SENTINEL',
    'SENTINEL-ключ-🔑',
    '"',
    '}',
    '\\',
    ',',
    'a',
    '',
    '🔑',
  ];
  const hostileLines = (logger: Logger) => {
    logger.info({ audit: true, event: 'signin.failed', connection: 'acme', code: 'idp.flow_missing' }, 'audit');
    logger.info({ reqId: 'r-1', method: 'GET', url: '/a', status: 200, ms: 1.5 }, 'request');
    for (const secret of hostileSecrets) {
      logger.warn(
        { note: `before ${secret} after`, whole: secret, list: [secret, `x${secret}`], [`k ${secret}`]: secret },
        `message ${secret} end`,
      );
    }
  };
  const strings = (value: unknown): string[] =>
    typeof value === 'string'
      ? [value]
      : typeof value === 'object' && value !== null
        ? Object.entries(value).flatMap(([key, inner]) => [key, ...strings(inner)])
        : [];

  it('keeps every line one JSON object with its audit fields, whatever the secrets look like, and never writes one', () => {
    const { logger, text } = capture(hostileSecrets);
    hostileLines(logger);
    const lines = text().split('\n').slice(0, -1);
    expect(lines).to.have.length(2 + hostileSecrets.length);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed[0]).to.deep.equal({
      level: 30,
      time: parsed[0]!.time,
      audit: true,
      event: 'signin.failed',
      connection: 'acme',
      code: 'idp.flow_missing',
      msg: 'audit',
    });
    expect(parsed[1]).to.include({ reqId: 'r-1', method: 'GET', url: '/a', status: 200, ms: 1.5, msg: 'request' });
    for (const line of parsed) {
      for (const value of strings(line)) {
        for (const secret of hostileSecrets.filter((each) => each.length >= SHORTEST_CONTAINED_SECRET)) {
          expect(value, secret).not.to.contain(secret);
        }
        for (const secret of hostileSecrets.filter((each) => each !== '')) expect(value).not.to.equal(secret);
      }
    }
    expect(text()).not.to.contain('SENTINEL');
  });

  it('redacts a secret shorter than 6 characters only where it is a whole value, leaving words that hold it', () => {
    const { logger, text } = capture(['abc', 'info']);
    logger.info({ whole: 'abc', inside: 'xabcx', kind: 'info', word: 'information' }, 'abc');
    expect(JSON.parse(text())).to.include({
      level: 30,
      whole: '[REDACTED]',
      inside: 'xabcx',
      kind: '[REDACTED]',
      word: 'information',
      msg: '[REDACTED]',
    });
  });

  it('holds the secrets of each connection while it is in force: learned, replaced when it changes, forgotten when it goes', () => {
    const { logger, text } = capture(['SENTINEL-configured']);
    const line = () => logger.info({ note: 'SENTINEL-one SENTINEL-two SENTINEL-configured' }, 'line');
    line();
    logger.holdSecrets('connection:acme', ['SENTINEL-one']);
    line();
    logger.holdSecrets('connection:globex', ['SENTINEL-two']);
    line();
    logger.holdSecrets('connection:acme', ['SENTINEL-rotated']);
    line();
    logger.holdSecrets('connection:globex', []);
    line();
    const notes = text()
      .split('\n')
      .slice(0, -1)
      .map((each) => (JSON.parse(each) as { note: string }).note);
    expect(notes).to.deep.equal([
      'SENTINEL-one SENTINEL-two [REDACTED]',
      '[REDACTED] SENTINEL-two [REDACTED]',
      '[REDACTED] [REDACTED] [REDACTED]',
      'SENTINEL-one [REDACTED] [REDACTED]',
      'SENTINEL-one SENTINEL-two [REDACTED]',
    ]);
  });

  it("leaves the caller's fields, and a line without secrets, as they were", () => {
    const { logger, text } = capture(['SENTINEL-secret']);
    const fields = { note: 'SENTINEL-secret', list: ['SENTINEL-secret'], when: new Date(0), plain: { a: 'b' } };
    logger.info(fields, 'line');
    expect(fields).to.deep.equal({
      note: 'SENTINEL-secret',
      list: ['SENTINEL-secret'],
      when: new Date(0),
      plain: { a: 'b' },
    });
    expect(JSON.parse(text())).to.deep.include({
      note: '[REDACTED]',
      list: ['[REDACTED]'],
      when: '1970-01-01T00:00:00.000Z',
      plain: { a: 'b' },
    });
  });

  // Up to 8 secrets are searched one by one, more all at once: each way on every placement.
  for (const count of [3, 200]) {
    describe(`redacting ${count} secrets`, () => {
      const secrets = Array.from({ length: count }, (_, index) => `SENTINEL-${index}-${'x'.repeat(index % 30)}"q`);
      const redactor = secretValueRedactor(secrets)!;
      const last = secrets[count - 1] ?? '';

      it('redacts one at the start, in the middle and at the end of a value, or the whole value', () => {
        for (const value of [`${last} after`, `before ${last} after`, `before ${last}`, last]) {
          expect(redactor.text(value), value).not.to.contain('SENTINEL');
          expect(redactor.text(value)).to.contain('[REDACTED]');
        }
      });

      it('redacts several in one value, and one whose first characters another shares', () => {
        const value = `${secrets[0]} and ${last}, ${secrets[1]}`;
        expect(redactor.text(value)).to.equal('[REDACTED] and [REDACTED], [REDACTED]');
      });

      it('leaves a value without any as it is: short, long, or holding a secret but for its last character', () => {
        for (const value of [
          '',
          'abc',
          'SENTIN',
          '{"level":30,"msg":"request"}',
          last.slice(0, -1),
          `x${last.slice(1)}`,
        ])
          expect(redactor.text(value), value).to.equal(value);
        const fields = { a: 'plain', b: [1, 'two'], c: { d: null } };
        expect(redactor.fields(fields)).to.equal(fields);
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
    // A setup link's token is its path's last segment: live until its button is pressed.
    ['/setup/link/SENTINEL-link-token_0123456789abcdefghijklmnopq', '/setup/link/[REDACTED]'],
    ['/Setup/Link/SENTINEL-link-token?x=1', '/Setup/Link/[REDACTED]?x=[REDACTED]'],
    ['/setup/link/SENTINEL-link-token/', '/setup/link/[REDACTED]/'],
    [
      '/Account/Login?returnUrl=%2Fsetup%2Flink%2FSENTINEL-link-token',
      '/Account/Login?returnUrl=%2Fsetup%2Flink%2F%5BREDACTED%5D',
    ],
    ['/setup/portal/domains', '/setup/portal/domains'],
  ];
  for (const [url, expected] of urls) {
    it(`logs ${url} as ${expected}`, () => expect(redactUrl(url)).to.equal(expected));
  }
});
