/**
 * The shared code flow's own refusals, through an adapter and its vendor-shaped server:
 * openid-client fails open on missing check values, so the adapter refuses before any
 * token request even if a caller got the bookkeeping wrong.
 */
import { expect } from 'chai';
import { startGitHubShapedServer } from '../../../scripts/vendor-servers/github-oauth-apps.js';
import type { VendorServer } from '../../../scripts/vendor-servers/vendor-server.js';
import { social3 } from '../../../src/adapters/github/social3.js';
import type {
  CallbackMessage,
  FlowSecrets,
  IdentityProvider,
} from '../../../src/application/ports/identity-provider.js';
import type { Logger } from '../../../src/application/ports/logger.js';
import { isGatehouseError } from '../../../src/domain/errors.js';
import { adapterOf } from '../../support/adapter-of.js';

const PUBLIC_ORIGIN = 'http://127.0.0.1:9';
const REDIRECT_URI = `${PUBLIC_ORIGIN}/signin-social3`;
const SECRET = 'SENTINEL-github-secret-0b7e';

describe('the shared authorization code flow refuses before the token endpoint', function () {
  this.timeout(10_000);
  let server: VendorServer;
  let provider: IdentityProvider;
  const warnings: object[] = [];
  const logger: Logger = { debug() {}, info() {}, warn: (fields) => void warnings.push(fields), error() {} };

  before(async () => {
    server = await startGitHubShapedServer({
      clients: [{ clientId: 'client', clientSecret: SECRET, redirectUris: [REDIRECT_URI] }],
    });
    provider = await adapterOf(
      social3,
      {
        ClientId: 'client',
        ClientSecret: SECRET,
        AuthorizationEndpoint: server.endpoints.authorization,
        TokenEndpoint: server.endpoints.token,
        UserInformationEndpoint: server.endpoints.userInformation,
        UserEmailsEndpoint: server.endpoints.userEmails ?? '',
      },
      { publicOrigin: PUBLIC_ORIGIN, logger },
    );
  });
  after(() => server.close());

  /** A real answer from the server to a real challenge, and the secrets kept for it. */
  async function answered(): Promise<{ message: CallbackMessage; secrets: FlowSecrets }> {
    const start = await provider.beginChallenge();
    const page = await (await fetch(start.redirectUrl)).text();
    const request = /name="request" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const answer = await fetch(server.endpoints.authorization, {
      method: 'POST',
      body: new URLSearchParams({ request, login: 'admin', decision: 'allow' }),
      redirect: 'manual',
    });
    const url = new URL(answer.headers.get('location') ?? '');
    return { message: { method: 'GET', url, form: new URLSearchParams() }, secrets: start.secrets };
  }

  async function failure(promise: Promise<unknown>): Promise<string> {
    try {
      await promise;
    } catch (err) {
      return isGatehouseError(err) ? err.code : 'not a GatehouseError';
    }
    return 'succeeded';
  }

  const cases: Array<[string, (secrets: FlowSecrets) => FlowSecrets, string]> = [
    ['no secrets at all', () => ({}), 'idp.flow_missing'],
    ['no PKCE verifier', ({ state = '' }) => ({ state }), 'idp.flow_missing'],
    ['an empty state', ({ codeVerifier = '' }) => ({ state: '', codeVerifier }), 'idp.flow_missing'],
    ['another state', ({ codeVerifier = '' }) => ({ state: 'another-state', codeVerifier }), 'idp.state_mismatch'],
  ];
  for (const [label, change, code] of cases) {
    it(`${label}: ${code}, and the code is never redeemed`, async () => {
      const { message, secrets } = await answered();
      const before = server.requests.token;
      expect(await failure(provider.completeCallback(message, change(secrets)))).to.equal(code);
      expect(server.requests.token).to.equal(before);
      expect(warnings.at(-1)).to.deep.include({ provider: 'Social3', stage: 'callback', code });
    });
  }

  it('completes with the right secrets (the same answer the refusals got)', async () => {
    const { message, secrets } = await answered();
    const identity = await provider.completeCallback(message, secrets);
    expect(identity.claims).to.deep.equal({
      id: '1001',
      login: 'ada-admin',
      name: 'Ada Admin',
      email: 'ada@example.test',
    });
    expect(identity.session).to.equal(undefined);
  });
});
