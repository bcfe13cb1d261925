import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupOptions } from 'node:dns';
import type { AddressRule } from './forbidden-address.js';
import { FetchRefusal } from './fetch-refusal.js';
import { vet } from './guarded-fetch.js';
import { translateError, type PinnedCallback, type ResolvedAddress } from './pinned-request.js';

export interface AddressGuardedFetchOptions {
  /** Accept http: too, the address rule still applied (Development only). */
  allowHttp?: boolean;
  /** The largest answer read, in bytes: metadata, key sets and token answers are far smaller. Default 1 MiB. */
  maxBytes?: number;
  /** Which addresses are refused: `forbiddenAddress` unless a test plays a public host on loopback. */
  addressRule?: AddressRule;
  /** Every address of a host name: the system's resolver unless a test answers. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** More certificate authorities to trust (PEM): a test's. */
  ca?: string | readonly string[];
}

const DEFAULT_MAX_BYTES = 1024 * 1024;
/** Statuses whose answer has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The fetch of every request a connection's adapter sends on its own (OpenID discovery,
 * key set, token, userinfo, pushed authorization; SAML metadata) when an organization
 * declared the connection itself, through the administration API or the setup portal. The
 * pre-flight vetted the addresses it was given, but a discovery document names more (its
 * token endpoint, its key set) and a host name may resolve elsewhere later: each request
 * here is vetted as the pre-flight's are (https only, http too in Development; refused when the host is, or resolves
 * to, a loopback, private, link-local or cloud-metadata address), and its socket pinned to
 * the address vetted, so the customer's provider cannot aim this server at the deployment's
 * own networks. Redirects are never followed (openid-client asks for none; SAML metadata
 * refuses them). A refusal is a `FetchRefusal`, which the adapters report as the provider
 * unreachable, naming neither the address nor anything received.
 */
export function addressGuardedFetch(options: AddressGuardedFetchOptions = {}): typeof fetch {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const address = await vet(url, { allowPrivateNetworks: false, ...vetting(options) }, request.signal);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const response = await sendPinnedRequest(request, url, address, body, maxBytes, options.ca);
    if (request.redirect === 'error' && response.status >= 300 && response.status < 400) {
      throw new FetchRefusal('status', `the server answered ${response.status}, a redirect, and redirects are refused`);
    }
    return response;
  };
}

function vetting(options: AddressGuardedFetchOptions) {
  return {
    ...(options.allowHttp ? { allowHttp: true } : {}),
    ...(options.addressRule ? { addressRule: options.addressRule } : {}),
    ...(options.lookup ? { lookup: options.lookup } : {}),
  };
}

/** One request over node:https (node:http where allowed), its socket to the vetted address only; the answer as a WHATWG Response. */
function sendPinnedRequest(
  request: Request,
  url: URL,
  address: ResolvedAddress,
  body: Buffer | undefined,
  maxBytes: number,
  ca: string | readonly string[] | undefined,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    if (body) headers['content-length'] = String(body.byteLength);
    const secure = url.protocol === 'https:';
    const outgoing = (secure ? httpsRequest : httpRequest)(
      {
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers,
        agent: false,
        signal: request.signal,
        lookup: (_hostname: string, lookupOptions: LookupOptions, callback: PinnedCallback) => {
          // Node asks for every address when it may try several (autoSelectFamily): one is all there is.
          if (lookupOptions.all) callback(null, [address]);
          else callback(null, address.address, address.family);
        },
        ...(secure && ca !== undefined ? { ca: ca as string | string[] } : {}),
      },
      (incoming) => {
        const status = incoming.statusCode ?? 0;
        const answerHeaders = new Headers();
        for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
          answerHeaders.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on('data', (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size <= maxBytes) return void chunks.push(chunk);
          incoming.destroy();
          reject(new FetchRefusal('too-large', 'the answer is larger than the limit'));
        });
        incoming.on('end', () =>
          resolve(
            new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), {
              status,
              statusText: incoming.statusMessage ?? '',
              headers: answerHeaders,
            }),
          ),
        );
        incoming.on('error', (error) => reject(translateError(error)));
      },
    );
    outgoing.on('error', (error) =>
      reject(
        request.signal.aborted
          ? new FetchRefusal('timeout', 'the server did not answer in time')
          : translateError(error),
      ),
    );
    outgoing.end(body);
  });
}
