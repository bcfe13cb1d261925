import * as client from 'openid-client';
import type { Clock } from '../../application/ports/clock.js';
import type { ProviderSigningCertificate } from '../../application/ports/identity-provider.js';
import { GatehouseError, isGatehouseError } from '../../domain/errors.js';
import { certificateFacts } from '../certificate-facts.js';
import type { ObserveRequest } from '../outbound-requests.js';
import { RefreshingMetadata } from '../saml/refreshing-metadata.js';

/** How old openid-client's copy of the key set may be and still be shown; past it, our own read (at most this often). */
const KEY_SET_REFRESH_MS = 60 * 60_000;
/** The largest key set read: a few keys with their certificate chains fit many times over. */
const KEY_SET_MAX_BYTES = 256 * 1024;

export interface KeySetCertificatesOptions {
  /** The provider's discovered configuration (the adapter's own, loaded once). */
  configuration: () => Promise<client.Configuration>;
  clock: Clock;
  timeoutMs: number;
  /** True when the Authority is http (loopback outside production): openid-client allows http then, and so does this. */
  allowInsecureHttp: boolean;
  observe?: ObserveRequest;
  onLoadFailed: (error: unknown) => void;
}

/**
 * The certificates of an OpenID provider's signing keys (the `x5c` of each key in its JWKS
 * whose `use` is not `enc`: RFC 7517 4.7, the first certificate holds the key). The key set
 * openid-client fetched to check an ID token is read first (`getJwksCache`: no request of
 * ours); when it has none from the last hour (nobody signed in since), the set is read
 * here, once, and again at most hourly on use: never a request per call.
 */
export class KeySetCertificates {
  readonly #options: KeySetCertificatesOptions;
  readonly #own: RefreshingMetadata<unknown>;

  constructor(options: KeySetCertificatesOptions) {
    this.#options = options;
    this.#own = new RefreshingMetadata({
      load: async () => this.#read(await options.configuration()),
      clock: options.clock,
      onLoadFailed: options.onLoadFailed,
      refreshMs: KEY_SET_REFRESH_MS,
    });
  }

  async certificates(): Promise<ProviderSigningCertificate[]> {
    const config = await this.#options.configuration();
    const seen = client.getJwksCache(config);
    if (seen && this.#options.clock.now() - seen.uat * 1000 < KEY_SET_REFRESH_MS) return certificatesIn(seen.jwks);
    return certificatesIn(await this.#own.get());
  }

  async #read(config: client.Configuration): Promise<unknown> {
    const address = config.serverMetadata().jwks_uri;
    if (address === undefined) return { keys: [] };
    const url = new URL(address);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.#options.allowInsecureHttp)) {
      throw unreadable();
    }
    const deadline = AbortSignal.timeout(this.#options.timeoutMs);
    const send = (headers: Record<string, string> = {}) =>
      fetch(url, {
        redirect: 'manual',
        signal: deadline,
        headers: { ...headers, accept: 'application/jwk-set+json, application/json' },
      });
    try {
      const response = await (this.#options.observe ? this.#options.observe('jwks', url, send) : send());
      if (response.status !== 200) {
        await response.body?.cancel();
        throw unreadable();
      }
      return JSON.parse(await readBounded(response));
    } catch (error) {
      throw isGatehouseError(error) ? error : unreadable();
    }
  }
}

function unreadable(): GatehouseError {
  return new GatehouseError('idp.unreachable', "The identity provider's signing keys could not be read.", {
    safe: true,
  });
}

async function readBounded(response: Response): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); reader && read && !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > KEY_SET_MAX_BYTES) {
      await reader.cancel();
      throw unreadable();
    }
    chunks.push(read.value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** The signing keys' certificates of a key set, each once; a key without `x5c` has none to show. */
function certificatesIn(keySet: unknown): ProviderSigningCertificate[] {
  const keys =
    typeof keySet === 'object' && keySet !== null && 'keys' in keySet && Array.isArray(keySet.keys) ? keySet.keys : [];
  const seen = new Set<string>();
  const certificates: ProviderSigningCertificate[] = [];
  for (const key of keys as unknown[]) {
    if (typeof key !== 'object' || key === null || !('x5c' in key) || !Array.isArray(key.x5c)) continue;
    if ('use' in key && key.use === 'enc') continue;
    const first: unknown = key.x5c[0];
    if (typeof first !== 'string' || seen.has(first)) continue;
    seen.add(first);
    const facts = certificateFacts(first);
    if (facts) certificates.push(facts);
  }
  return certificates;
}
