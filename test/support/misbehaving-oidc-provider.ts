/**
 * A small OpenID provider for negative cases. It speaks OpenID Connect Discovery 1.0,
 * RFC 7517 JWKS, the authorization code grant with PKCE (RFC 6749, RFC 7636), RFC 9207
 * `iss` in authorization responses, and OIDC Core ID tokens and userinfo, exactly, so that
 * a failing test fails because of the one defect it switched on and nothing else. With
 * `tokenBehavior = 'ok'` a relying party must complete a sign-in against it.
 *
 * The authorization endpoint has no login: it redirects straight back with a code.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export type IdTokenDefect =
  'wrong-issuer' | 'wrong-audience' | 'wrong-nonce' | 'bad-signature' | 'alg-none' | 'expired';
/** What the token endpoint answers to a valid authorization-code request. */
export type TokenBehavior = 'ok' | IdTokenDefect | 'oauth-error' | 'hang';
export type Endpoint = 'discovery' | 'jwks' | 'authorization' | 'token' | 'userinfo';

export interface MisbehavingProviderOptions {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Sent as error_description with 'oauth-error' (a relying party must not echo it). */
  errorDescription?: string;
}

export interface MisbehavingProvider {
  readonly issuer: string;
  /** How the next token responses go wrong; reset to 'ok' by reset(). */
  tokenBehavior: TokenBehavior;
  /** Endpoints that accept the request and never answer. */
  readonly hanging: Set<Endpoint>;
  /** Requests received per endpoint since the last reset(). */
  readonly requests: Record<Endpoint, number>;
  /** The subject and profile the ID token and userinfo describe. */
  readonly user: { sub: string; name: string; email: string };
  /** Claims userinfo answers beside the profile (`email_verified`, or claims no provider should send); reset by reset(). */
  userinfoClaims: Record<string, unknown>;
  /** Members the discovery document leaves out (a provider that lists less than it could); cleared by reset(). */
  readonly discoveryOmits: Set<string>;
  reset(): void;
  close(): Promise<void>;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  nonce: string | undefined;
  codeChallenge: string;
  expiresAt: number;
}

const CODE_TTL_MS = 60_000;

export async function startMisbehavingOidcProvider(options: MisbehavingProviderOptions): Promise<MisbehavingProvider> {
  const kid = 'misbehaving-key-1';
  const signing = await generateKeyPair('RS256', { extractable: true });
  // Same kid, another key: the JWKS selects our public key and the signature does not verify.
  const impostor = await generateKeyPair('RS256', { extractable: true });
  const publicJwk: JWK = { ...(await exportJWK(signing.publicKey)), kid, alg: 'RS256', use: 'sig' };

  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Set<string>();
  const refreshTokens = new Set<string>();
  const user = { sub: 'misbehaving-subject-1', name: 'Mona Misbehaving', email: 'mona@example.test' };
  const requests: Record<Endpoint, number> = { discovery: 0, jwks: 0, authorization: 0, token: 0, userinfo: 0 };
  const hanging = new Set<Endpoint>();
  const discoveryOmits = new Set<string>();

  const server = createServer((req, res) => {
    void route(req, res).catch(() => {
      if (!res.headersSent) json(res, 500, { error: 'server_error' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider: MisbehavingProvider = {
    issuer,
    tokenBehavior: 'ok',
    hanging,
    requests,
    user,
    userinfoClaims: {},
    discoveryOmits,
    reset() {
      provider.tokenBehavior = 'ok';
      provider.userinfoClaims = {};
      hanging.clear();
      discoveryOmits.clear();
      for (const key of Object.keys(requests) as Endpoint[]) requests[key] = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', issuer);
    const endpoint = endpointOf(req.method ?? 'GET', url.pathname);
    if (!endpoint) return json(res, 404, { error: 'not_found' });
    requests[endpoint] += 1;
    if (hanging.has(endpoint) || (endpoint === 'token' && provider.tokenBehavior === 'hang')) return; // never answer
    switch (endpoint) {
      case 'discovery':
        return json(
          res,
          200,
          Object.fromEntries(Object.entries(discoveryDocument()).filter(([name]) => !discoveryOmits.has(name))),
        );
      case 'jwks':
        return json(res, 200, { keys: [publicJwk] }, 'application/jwk-set+json');
      case 'authorization':
        return authorize(url, res);
      case 'token':
        return token(req, res);
      case 'userinfo':
        return userinfo(req, res);
    }
  }

  function discoveryDocument(): Record<string, unknown> {
    return {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      userinfo_endpoint: `${issuer}/userinfo`,
      jwks_uri: `${issuer}/jwks`,
      scopes_supported: ['openid', 'profile', 'email'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
      code_challenge_methods_supported: ['S256'],
      claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'nonce', 'auth_time', 'name', 'email'],
      authorization_response_iss_parameter_supported: true,
    };
  }

  // RFC 6749 4.1.1 / 4.1.2, RFC 7636 4.3, RFC 9207.
  function authorize(url: URL, res: ServerResponse): void {
    const p = url.searchParams;
    const redirectUri = p.get('redirect_uri');
    if (p.get('client_id') !== options.clientId || redirectUri !== options.redirectUri) {
      return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
    }
    const back = new URL(redirectUri);
    const state = p.get('state');
    if (state !== null) back.searchParams.set('state', state);
    back.searchParams.set('iss', issuer);
    const challenge = p.get('code_challenge');
    const scopes = (p.get('scope') ?? '').split(' ');
    if (
      p.get('response_type') !== 'code' ||
      !scopes.includes('openid') ||
      challenge === null ||
      p.get('code_challenge_method') !== 'S256'
    ) {
      back.searchParams.set('error', 'invalid_request');
    } else {
      const code = randomBytes(32).toString('base64url');
      codes.set(code, {
        clientId: options.clientId,
        redirectUri,
        nonce: p.get('nonce') ?? undefined,
        codeChallenge: challenge,
        expiresAt: Date.now() + CODE_TTL_MS,
      });
      back.searchParams.set('code', code);
    }
    res.writeHead(302, { location: back.href, 'cache-control': 'no-store' }).end();
  }

  // RFC 6749 4.1.3 / 5.1 / 5.2 and 6, RFC 7636 4.6, OIDC Core 3.1.3.3.
  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!authenticatesClient(req.headers.authorization)) {
      res.setHeader('www-authenticate', 'Basic realm="token"');
      return json(res, 401, { error: 'invalid_client' });
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return json(res, 400, { error: 'invalid_request' });
    }
    const body = new URLSearchParams(await readBody(req));
    const grantType = body.get('grant_type');
    if (grantType === 'refresh_token') {
      const refreshToken = body.get('refresh_token') ?? '';
      if (!refreshTokens.has(refreshToken)) return json(res, 400, { error: 'invalid_grant' });
      return json(res, 200, await tokenResponse(undefined, 'ok'));
    }
    if (grantType !== 'authorization_code') return json(res, 400, { error: 'unsupported_grant_type' });
    const code = body.get('code') ?? '';
    const issued = codes.get(code);
    codes.delete(code); // single use
    const verifier = body.get('code_verifier') ?? '';
    if (
      !issued ||
      issued.expiresAt < Date.now() ||
      issued.redirectUri !== body.get('redirect_uri') ||
      createHash('sha256').update(verifier).digest('base64url') !== issued.codeChallenge
    ) {
      return json(res, 400, { error: 'invalid_grant' });
    }
    if (provider.tokenBehavior === 'oauth-error') {
      return json(res, 400, {
        error: 'invalid_grant',
        error_description: options.errorDescription ?? 'refused on purpose',
      });
    }
    return json(res, 200, await tokenResponse(issued.nonce, provider.tokenBehavior));
  }

  async function tokenResponse(nonce: string | undefined, behavior: TokenBehavior): Promise<Record<string, unknown>> {
    const accessToken = randomBytes(32).toString('base64url');
    const refreshToken = randomBytes(32).toString('base64url');
    accessTokens.add(accessToken);
    refreshTokens.add(refreshToken);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 300,
      refresh_token: refreshToken,
      id_token: await idToken(nonce, behavior),
    };
  }

  async function idToken(nonce: string | undefined, behavior: TokenBehavior): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const claims: JWTPayload = {
      iss: behavior === 'wrong-issuer' ? `${issuer}/other` : issuer,
      sub: user.sub,
      aud: behavior === 'wrong-audience' ? `${options.clientId}-other` : options.clientId,
      iat: behavior === 'expired' ? now - 7200 : now,
      exp: behavior === 'expired' ? now - 3600 : now + 300,
      auth_time: now,
    };
    if (nonce !== undefined) claims['nonce'] = behavior === 'wrong-nonce' ? `${nonce}-other` : nonce;
    if (behavior === 'alg-none') {
      // RFC 7519 6.1: an Unsecured JWT has an empty signature.
      const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
      return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
    }
    const key: CryptoKey = behavior === 'bad-signature' ? impostor.privateKey : signing.privateKey;
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(key);
  }

  // OIDC Core 5.3, RFC 6750 2.1 / 3.
  function userinfo(req: IncomingMessage, res: ServerResponse): void {
    const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    if (!match?.[1] || !accessTokens.has(match[1])) {
      res.setHeader('www-authenticate', 'Bearer error="invalid_token"');
      return json(res, 401, { error: 'invalid_token' });
    }
    json(res, 200, { sub: user.sub, name: user.name, email: user.email, ...provider.userinfoClaims });
  }

  // RFC 6749 2.3.1: client_secret_basic, id and secret form-urlencoded before base64.
  function authenticatesClient(header: string | undefined): boolean {
    const match = /^Basic (\S+)$/.exec(header ?? '');
    if (!match?.[1]) return false;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    const decode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
    return (
      decode(decoded.slice(0, colon)) === options.clientId && decode(decoded.slice(colon + 1)) === options.clientSecret
    );
  }

  return provider;
}

function endpointOf(method: string, path: string): Endpoint | undefined {
  if (method === 'GET' && path === '/.well-known/openid-configuration') return 'discovery';
  if (method === 'GET' && path === '/jwks') return 'jwks';
  if (method === 'GET' && path === '/authorize') return 'authorization';
  if (method === 'POST' && path === '/token') return 'token';
  if ((method === 'GET' || method === 'POST') && path === '/userinfo') return 'userinfo';
  return undefined;
}

function json(res: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
  res.writeHead(status, {
    'content-type': `${contentType}; charset=utf-8`,
    'cache-control': 'no-store',
    pragma: 'no-cache',
  });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
