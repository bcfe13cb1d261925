import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { FetchRefusal } from './fetch-refusal.js';

/** One address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** One GET of a guarded fetch, after its address was vetted. */
export interface PinnedRequest {
  url: URL;
  /** The address vetted for `url`'s host: the only one the socket may go to. */
  address: ResolvedAddress;
  /** The whole fetch's deadline: aborts the request wherever it is, body included. */
  signal: AbortSignal;
  /** The largest body read, in bytes. */
  maxBytes: number;
  accept: string;
  /** More certificate authorities to trust (PEM): a deployment's own, or a test's. */
  ca?: string | readonly string[];
}

/** What one GET brought back: a 200's body, or another status (a redirect's `Location`). */
export interface HopAnswer {
  status: number;
  location?: string;
  body?: Buffer;
}

/** Sends one vetted GET. The guard's only way out to the network: tests swap it to prove none was made. */
export type Transport = (request: PinnedRequest) => Promise<HopAnswer>;

/**
 * One GET with node:http(s), connected to the vetted address only: the request's `lookup`
 * answers that address whatever the name, so a DNS server that answers a public address
 * to the guard's look-up and a private one a moment later (DNS rebinding) is never asked
 * again. TLS still checks the certificate against the URL's host name (SNI and
 * `checkServerIdentity` use the host, not the address). No agent is shared (no pooled
 * socket to another host), no cookie and no credential is sent, and the body is read up to
 * `maxBytes` and no further.
 */
export const sendPinned: Transport = (hop) =>
  new Promise<HopAnswer>((resolve, reject) => {
    const { url, address, signal, maxBytes } = hop;
    const secure = url.protocol === 'https:';
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    const fail = (error: FetchRefusal) => finish(() => reject(error));
    const options: RequestOptions = {
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { accept: hop.accept, 'user-agent': 'Gatehouse' },
      agent: false,
      lookup: (_hostname: string, lookupOptions: LookupOptions, callback: PinnedCallback) => {
        // Node asks for every address when it may try several (autoSelectFamily): one is all there is.
        if (lookupOptions.all) callback(null, [address]);
        else callback(null, address.address, address.family);
      },
      ...(secure && hop.ca !== undefined ? { ca: hop.ca as string | string[] } : {}),
    };
    const request = (secure ? httpsRequest : httpRequest)(options, (response) =>
      readAnswer(response, maxBytes, (answer) => finish(() => resolve(answer)), fail),
    );
    const onAbort = () => {
      request.destroy();
      fail(new FetchRefusal('timeout', 'the server did not answer in time'));
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error) => fail(translateError(error)));
    request.end();
  });

export type PinnedCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

function readAnswer(
  response: IncomingMessage,
  maxBytes: number,
  resolve: (answer: HopAnswer) => void,
  reject: (error: FetchRefusal) => void,
): void {
  const status = response.statusCode ?? 0;
  if (status !== 200) {
    const location = response.headers.location;
    resolve({ status, ...(location === undefined ? {} : { location }) });
    return void response.destroy();
  }
  const tooLarge = () => {
    reject(new FetchRefusal('too-large', `the document is larger than ${sizeInWords(maxBytes)}`));
    response.destroy();
  };
  if (Number(response.headers['content-length'] ?? 0) > maxBytes) return tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  response.on('data', (chunk: Buffer) => {
    size += chunk.byteLength;
    if (size > maxBytes) tooLarge();
    else chunks.push(chunk);
  });
  response.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
  response.on('error', (error) => reject(translateError(error)));
  response.on('aborted', () => reject(new FetchRefusal('unreachable', 'the server closed the connection mid-answer')));
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/** Node's and OpenSSL's error codes are a fixed vocabulary, safe to name; the message (which may quote the host) is not. */
export function translateError(error: unknown): FetchRefusal {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  const named = /^[A-Z0-9_]{1,64}$/.test(code) ? ` (${code})` : '';
  if (TLS_CODE.test(code)) return new FetchRefusal('tls', `the server's TLS certificate was not accepted${named}`);
  return new FetchRefusal('unreachable', `the server could not be reached${named}`);
}

/** `1 MiB`, `64 KiB`, or bytes. */
export function sizeInWords(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
