import { lookup as systemLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { FetchRefusal } from './fetch-refusal.js';
import { forbiddenAddress, forbiddenHostName, type AddressRule } from './forbidden-address.js';
import { sendPinned, type ResolvedAddress, type Transport } from './pinned-request.js';

export interface GuardedFetchOptions {
  /**
   * Skip the address rule (and the forbidden host names), and accept http: for a
   * deployment whose identity providers live on its own network, the demo, the tests.
   */
  allowPrivateNetworks: boolean;
  /** Accept http: too, the address rule still applied (Development: a provider without TLS on a test host). */
  allowHttp?: boolean;
  /** The whole fetch, every redirect and the body included. Default 5 s. */
  timeoutMs?: number;
  /** The largest body read. Default 1 MiB. */
  maxBytes?: number;
  /** Redirects followed, each one vetted like the first address. Default 3; 0 refuses any. */
  maxRedirects?: number;
  /** The `Accept` header. */
  accept?: string;
  /** More certificate authorities to trust (PEM). */
  ca?: string | readonly string[];
  /** Which addresses are refused: `forbiddenAddress` unless a test plays a public host on loopback. */
  addressRule?: AddressRule;
  /** Every address of a host name: the system's resolver unless a test answers. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Sends a vetted request: `sendPinned` unless a test proves no connection is made. */
  transport?: Transport;
}

/** A document fetched: the address it came from in the end, and its text. */
export interface FetchedDocument {
  url: URL;
  text: string;
}

export const DEFAULT_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_BYTES = 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs a document at an address someone else chose (a connection's Authority or
 * MetadataUrl) without letting them aim this server at its own networks (server-side
 * request forgery): https only; the host resolved once, and refused when any of its
 * addresses is one the address rule forbids (loopback, private, link-local, cloud
 * metadata ...; a literal IP in the URL, however spelled, the same); the socket pinned to
 * the address vetted, so no second look-up can rebind it; every redirect vetted the same
 * way; one deadline over everything; the body bounded. A refusal is a `FetchRefusal` whose
 * reason names neither the URL, nor an address, nor anything received.
 */
export async function guardedFetch(address: string, options: GuardedFetchOptions): Promise<FetchedDocument> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const transport = options.transport ?? sendPinned;
  if (!URL.canParse(address)) throw new FetchRefusal('address', 'the address is not an absolute URL');
  let url = new URL(address);
  try {
    for (let redirects = 0; ; redirects += 1) {
      const pinned = await vet(url, options, deadline);
      const answer = await transport({
        url,
        address: pinned,
        signal: deadline,
        maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
        accept: options.accept ?? '*/*',
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      });
      if (REDIRECTS.has(answer.status) && answer.location !== undefined) {
        if (redirects >= maxRedirects) throw tooManyRedirects(answer.status, maxRedirects);
        if (!URL.canParse(answer.location, url)) {
          throw new FetchRefusal('status', 'the server redirected to something that is not an address');
        }
        url = new URL(answer.location, url);
        continue;
      }
      if (answer.status !== 200 || answer.body === undefined) {
        throw new FetchRefusal('status', `the server answered ${answer.status}`);
      }
      return { url, text: utf8(answer.body) };
    }
  } catch (error) {
    if (error instanceof FetchRefusal && error.kind !== 'timeout') throw error;
    if (deadline.aborted) {
      throw new FetchRefusal('timeout', `the server gave no complete answer within ${timeoutMs / 1000} s`);
    }
    throw error instanceof FetchRefusal ? error : new FetchRefusal('unreachable', 'the server could not be reached');
  }
}

/** The address to connect to for `url`, once the scheme, the host name and every address it resolves to passed. */
export async function vet(
  url: URL,
  options: Pick<GuardedFetchOptions, 'allowPrivateNetworks' | 'allowHttp' | 'addressRule' | 'lookup'>,
  deadline: AbortSignal,
): Promise<ResolvedAddress> {
  const allowed = options.allowPrivateNetworks;
  const httpToo = allowed || options.allowHttp === true;
  if (url.protocol !== 'https:' && !(httpToo && url.protocol === 'http:')) {
    throw new FetchRefusal('address', httpToo ? 'the address must use https or http' : 'the address must use https');
  }
  if (url.username !== '' || url.password !== '') {
    throw new FetchRefusal('address', 'the address carries a user name or password');
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  if (family === 4 || family === 6) {
    // The URL parser already made every spelling canonical: 2130706433 and 0x7f.1 are 127.0.0.1 here.
    const reason = allowed ? undefined : (options.addressRule ?? forbiddenAddress)(host);
    if (reason !== undefined) throw new FetchRefusal('forbidden', `the address is ${reason}`);
    return { address: host, family };
  }
  const named = allowed ? undefined : forbiddenHostName(host);
  if (named !== undefined) throw new FetchRefusal('forbidden', `the address ${named}`);
  const addresses = await resolve(host, options.lookup ?? lookupAll, deadline);
  for (const resolved of allowed ? [] : addresses) {
    const reason = (options.addressRule ?? forbiddenAddress)(resolved.address);
    // Any one forbidden address refuses the host: which one a connection would use is not ours to predict.
    if (reason !== undefined) throw new FetchRefusal('forbidden', `the host name resolves to ${reason}`);
  }
  const [first] = addresses;
  if (!first) throw new FetchRefusal('unreachable', 'the host name does not resolve');
  return first;
}

async function resolve(
  host: string,
  lookup: (hostname: string) => Promise<ResolvedAddress[]>,
  deadline: AbortSignal,
): Promise<ResolvedAddress[]> {
  if (deadline.aborted) throw new FetchRefusal('timeout', 'the host name did not resolve in time');
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new FetchRefusal('timeout', 'the host name did not resolve in time'));
    deadline.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([lookup(host), aborted]);
  } catch (error) {
    if (error instanceof FetchRefusal) throw error;
    throw new FetchRefusal('unreachable', 'the host name does not resolve');
  } finally {
    deadline.removeEventListener('abort', onAbort);
  }
}

async function lookupAll(hostname: string): Promise<ResolvedAddress[]> {
  const found = await systemLookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

function tooManyRedirects(status: number, maxRedirects: number): FetchRefusal {
  return new FetchRefusal(
    'status',
    maxRedirects === 0
      ? `the server answered ${status}, a redirect, and redirects are not followed`
      : `the server redirected more than ${maxRedirects} times`,
  );
}

function utf8(body: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new FetchRefusal('not-text', 'the document is not UTF-8 text');
  }
}
