/**
 * The OAuth 2.0 authorization server and API that every vendor-shaped server shares
 * (RFC 6749 4.1 with RFC 7636 PKCE, RFC 6750 bearer APIs), for the demo and the tests:
 * plain http on loopback, in-memory, two demo accounts. What differs per vendor (paths,
 * field names, error formats, content types) comes from its `VendorShape`, so each
 * server answers the way its vendor does. Development only; nothing in src/ imports it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DemoLogin } from '../demo-users.js';
import { consentPage, errorPage } from './consent-page.js';

export type VendorEndpoint = 'authorization' | 'token' | 'userInformation' | 'userEmails';
/** The vendor's JSON for each API endpoint, per demo account. */
export type VendorAccounts = Record<DemoLogin, Partial<Record<VendorEndpoint, unknown>>>;

export interface VendorClient {
  clientId: string;
  clientSecret: string;
  /** Compared exactly, as the vendors do. */
  redirectUris: string[];
}

export interface VendorServerOptions {
  clients: VendorClient[];
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

/** An HTTP answer exactly as the vendor writes it. */
export interface VendorReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What a code was issued for, and the tokens it became. */
export interface Grant {
  clientId: string;
  login: DemoLogin;
  scopes: string[];
}

export interface VendorShape {
  /** Shown on the consent page, saying what this server imitates (and that it is not the vendor). */
  title: string;
  paths: { authorization: string; token: string; userInformation: string; userEmails?: string };
  accounts: () => VendorAccounts;
  /** RFC 6749 4.1.1: Microsoft and Amazon require `response_type=code`; GitHub ignores it. */
  requiresResponseType: boolean;
  /** Parameters the vendor adds to every authorization response (GitHub's RFC 9207 `iss`). */
  responseParameters(origin: string): Record<string, string>;
  /** What the vendor sends with `error=access_denied` when the user cancels. */
  deniedParameters: Record<string, string>;
  /** The token response (RFC 6749 5.1) in the vendor's format; `accept` is the request's Accept header. */
  tokenReply(tokens: IssuedTokens, grant: Grant, accept: string | undefined): VendorReply;
  /** A token error in the vendor's format, given its RFC 6749 5.2 code and the status RFC 6749 asks for. */
  tokenError(error: string, status: number, accept: string | undefined): VendorReply;
  /** An API error in the vendor's format (401 bad token, 404, 500 ...). */
  resourceError(status: number): VendorReply;
  /** Scopes of which one must be granted for an API endpoint to answer (GitHub's emails); else 404. */
  resourceScopes?: Partial<Record<VendorEndpoint, string[]>>;
  /** The API refuses requests without a User-Agent, with this answer (GitHub). */
  missingUserAgent?: VendorReply;
  /** Content type of the API's JSON. */
  resourceContentType: string;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken?: string;
}

/** How an API endpoint misbehaves: a status in the vendor's error format, or a body of the test's choosing. */
export type ResourceFault = { status: number } | { body: string; contentType: string };

export interface VendorServer {
  origin: string;
  /** Absolute URLs, for the endpoint-override keys. */
  endpoints: { authorization: string; token: string; userInformation: string; userEmails?: string };
  /** The accounts' API JSON; tests may change it (reset() restores it). */
  accounts: VendorAccounts;
  /** Endpoints that accept the request and never answer. */
  readonly hanging: Set<VendorEndpoint>;
  /** When set, every token request is refused with this RFC 6749 5.2 code, in the vendor's format. */
  tokenError: string | undefined;
  readonly resourceFaults: Map<VendorEndpoint, ResourceFault>;
  /** When set, rewrites each successful token response before it is sent (a malformed one, for tests). */
  rewriteTokenReply: ((reply: VendorReply) => VendorReply) | undefined;
  /** Requests received per endpoint since the last reset(). */
  readonly requests: Record<VendorEndpoint, number>;
  /** Headers of the last request per endpoint. */
  readonly lastHeaders: Map<VendorEndpoint, IncomingHttpHeaders>;
  /** The query of the last authorization request. */
  lastAuthorizationRequest: URLSearchParams | undefined;
  /** Every code and token issued (tests look for them in logs). */
  readonly issued: string[];
  reset(): void;
  close(): Promise<void>;
}

interface PendingAuthorization {
  client: VendorClient;
  redirectUri: string;
  state: string | null;
  scopes: string[];
  codeChallenge: string | null;
}

interface IssuedCode extends Grant {
  redirectUri: string;
  codeChallenge: string | null;
  expiresAt: number;
}

const CODE_TTL_MS = 60_000;
const newToken = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;

export async function startVendorServer(shape: VendorShape, options: VendorServerOptions): Promise<VendorServer> {
  const pending = new Map<string, PendingAuthorization>();
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, Grant>();
  const refreshTokens = new Map<string, Grant>();
  const emptyCounts = (): Record<VendorEndpoint, number> => ({
    authorization: 0,
    token: 0,
    userInformation: 0,
    userEmails: 0,
  });

  const httpServer = createServer((req, res) => {
    void route(req, res).catch(() => {
      if (!res.headersSent) send(res, shape.resourceError(500));
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = httpServer.address() as AddressInfo;
  const origin = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;

  const server: VendorServer = {
    origin,
    endpoints: {
      authorization: `${origin}${shape.paths.authorization}`,
      token: `${origin}${shape.paths.token}`,
      userInformation: `${origin}${shape.paths.userInformation}`,
      ...(shape.paths.userEmails ? { userEmails: `${origin}${shape.paths.userEmails}` } : {}),
    },
    accounts: shape.accounts(),
    hanging: new Set(),
    tokenError: undefined,
    resourceFaults: new Map(),
    rewriteTokenReply: undefined,
    requests: emptyCounts(),
    lastHeaders: new Map(),
    lastAuthorizationRequest: undefined,
    issued: [],
    reset() {
      server.hanging.clear();
      server.tokenError = undefined;
      server.resourceFaults.clear();
      server.rewriteTokenReply = undefined;
      server.accounts = shape.accounts();
      Object.assign(server.requests, emptyCounts());
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        httpServer.close((err) => (err ? reject(err) : resolve()));
        httpServer.closeAllConnections();
      }),
  };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const endpoint = (Object.keys(shape.paths) as VendorEndpoint[]).find((name) => shape.paths[name] === url.pathname);
    if (!endpoint) return send(res, shape.resourceError(404));
    server.requests[endpoint] += 1;
    server.lastHeaders.set(endpoint, req.headers);
    if (server.hanging.has(endpoint)) return; // accepts the request, never answers
    if (endpoint === 'authorization' && req.method === 'GET') return authorize(url, res);
    if (endpoint === 'authorization' && req.method === 'POST') return decide(await readForm(req), res);
    if (endpoint === 'token' && req.method === 'POST') return token(req, await readForm(req), res);
    if (endpoint !== 'authorization' && endpoint !== 'token' && req.method === 'GET')
      return resource(endpoint, req, res);
    send(res, shape.resourceError(405));
  }

  // RFC 6749 4.1.1 / 4.1.2.1, RFC 7636 4.3: an unknown client or redirect URI is never redirected to.
  function authorize(url: URL, res: ServerResponse): void {
    const p = url.searchParams;
    server.lastAuthorizationRequest = new URLSearchParams(p);
    const client = options.clients.find((candidate) => candidate.clientId === p.get('client_id'));
    const redirectUri = p.get('redirect_uri') ?? '';
    if (!client || !client.redirectUris.includes(redirectUri)) {
      return sendHtml(res, 400, errorPage(shape.title, 'The application or its redirect URI is not registered.'));
    }
    const state = p.get('state');
    const challengeMethod = p.get('code_challenge_method');
    const refusal =
      shape.requiresResponseType && p.get('response_type') !== 'code'
        ? 'unsupported_response_type'
        : p.has('code_challenge') && challengeMethod !== 'S256'
          ? 'invalid_request'
          : undefined;
    if (refusal) return redirect(res, redirectUri, { error: refusal, ...(state === null ? {} : { state }) });
    const id = randomBytes(16).toString('base64url');
    pending.set(id, {
      client,
      redirectUri,
      state,
      scopes: (p.get('scope') ?? '').split(/[\s,]+/).filter((scope) => scope !== ''),
      codeChallenge: p.get('code_challenge'),
    });
    sendHtml(res, 200, consentPage({ title: shape.title, action: shape.paths.authorization, request: id }));
  }

  function decide(form: URLSearchParams, res: ServerResponse): void {
    const id = form.get('request') ?? '';
    const request = pending.get(id);
    pending.delete(id); // one answer per authorization request
    if (!request)
      return sendHtml(res, 400, errorPage(shape.title, 'This sign-in request is unknown or was answered already.'));
    const back: Record<string, string> = { ...shape.responseParameters(origin) };
    if (form.get('decision') === 'allow') {
      const login: DemoLogin = form.get('login') === 'user' ? 'user' : 'admin';
      const code = newToken('');
      server.issued.push(code);
      codes.set(code, {
        clientId: request.client.clientId,
        login,
        scopes: request.scopes,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        expiresAt: Date.now() + CODE_TTL_MS,
      });
      back.code = code;
    } else {
      Object.assign(back, { error: 'access_denied', ...shape.deniedParameters });
    }
    if (request.state !== null) back.state = request.state;
    redirect(res, request.redirectUri, back);
  }

  // RFC 6749 2.3.1 (client_secret_post or _basic), 4.1.3, 6; RFC 7636 4.6.
  function token(req: IncomingMessage, form: URLSearchParams, res: ServerResponse): void {
    const accept = req.headers.accept;
    const client = authenticatedClient(req.headers.authorization, form);
    if (!client) return send(res, shape.tokenError('invalid_client', 401, accept));
    if (server.tokenError) return send(res, shape.tokenError(server.tokenError, 400, accept));
    let grant: Grant | undefined;
    if (form.get('grant_type') === 'authorization_code') {
      const code = form.get('code') ?? '';
      const issued = codes.get(code);
      codes.delete(code); // single use
      const verifier = form.get('code_verifier');
      const pkceHolds =
        issued?.codeChallenge === null
          ? verifier === null
          : verifier !== null && createHash('sha256').update(verifier).digest('base64url') === issued?.codeChallenge;
      if (issued && issued.redirectUri !== form.get('redirect_uri')) {
        return send(res, shape.tokenError('redirect_uri_mismatch', 400, accept));
      }
      if (!issued || issued.expiresAt < Date.now() || issued.clientId !== client.clientId || !pkceHolds) {
        return send(res, shape.tokenError('invalid_grant', 400, accept));
      }
      grant = { clientId: issued.clientId, login: issued.login, scopes: issued.scopes };
    } else if (form.get('grant_type') === 'refresh_token') {
      grant = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!grant || grant.clientId !== client.clientId)
        return send(res, shape.tokenError('invalid_grant', 400, accept));
    } else {
      return send(res, shape.tokenError('unsupported_grant_type', 400, accept));
    }
    const tokens: IssuedTokens = { accessToken: newToken('at-'), refreshToken: newToken('rt-') };
    server.issued.push(tokens.accessToken, tokens.refreshToken ?? '');
    accessTokens.set(tokens.accessToken, grant);
    if (tokens.refreshToken) refreshTokens.set(tokens.refreshToken, grant);
    const reply = shape.tokenReply(tokens, grant, accept);
    send(res, server.rewriteTokenReply ? server.rewriteTokenReply(reply) : reply);
  }

  // RFC 6750 2.1 and 3.1.
  function resource(endpoint: VendorEndpoint, req: IncomingMessage, res: ServerResponse): void {
    if (shape.missingUserAgent && !req.headers['user-agent']) return send(res, shape.missingUserAgent);
    const grant = accessTokens.get(/^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '');
    if (!grant) return send(res, shape.resourceError(401));
    const needed = shape.resourceScopes?.[endpoint];
    if (needed && !needed.some((scope) => grant.scopes.includes(scope))) return send(res, shape.resourceError(404));
    const fault = server.resourceFaults.get(endpoint);
    if (fault && 'status' in fault) return send(res, shape.resourceError(fault.status));
    if (fault) return send(res, { status: 200, headers: { 'content-type': fault.contentType }, body: fault.body });
    const json = server.accounts[grant.login][endpoint];
    if (json === undefined) return send(res, shape.resourceError(404));
    send(res, { status: 200, headers: { 'content-type': shape.resourceContentType }, body: JSON.stringify(json) });
  }

  function authenticatedClient(authorization: string | undefined, form: URLSearchParams): VendorClient | undefined {
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    const basic = /^Basic (\S+)$/i.exec(authorization ?? '');
    if (basic?.[1]) {
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const decode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
      id = decode(decoded.slice(0, colon));
      secret = decode(decoded.slice(colon + 1));
    }
    return options.clients.find((client) => client.clientId === id && client.clientSecret === secret);
  }

  return server;
}

function redirect(res: ServerResponse, redirectUri: string, parameters: Record<string, string>): void {
  const location = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) location.searchParams.set(name, value);
  res.writeHead(302, { location: location.href, 'cache-control': 'no-store' }).end();
}

function send(res: ServerResponse, reply: VendorReply): void {
  res.writeHead(reply.status, { 'cache-control': 'no-store', ...reply.headers }).end(reply.body);
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  send(res, { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: html });
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** A JSON reply. */
export function jsonReply(status: number, body: unknown, contentType = 'application/json; charset=utf-8'): VendorReply {
  return { status, headers: { 'content-type': contentType }, body: JSON.stringify(body) };
}
