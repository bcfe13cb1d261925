import type {
  ConnectionPreflight,
  PreflightCheck,
  PreflightRefusal,
  PreflightReport,
} from '../../application/ports/connection-preflight.js';
import type { Connection } from '../../domain/connections/connection.js';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_TIMEOUT_MS,
  guardedFetch,
  type GuardedFetchOptions,
} from '../outbound/guarded-fetch.js';
import { openIdConnect } from '../oidc/open-id-connect.js';
import { saml2 } from '../saml/saml2.js';
import { checkOpenIdProvider } from './openid-preflight.js';
import type { PreflightContext } from './preflight-context.js';
import { checkSamlProvider } from './saml-preflight.js';

export interface HttpConnectionPreflightOptions {
  /**
   * `ProjectTemplate:Administration:AllowPrivateNetworks`: fetch from loopback, private,
   * link-local and cloud-metadata addresses, and over plain http (the demo, the tests).
   */
  allowPrivateNetworks: boolean;
  /** Accept http: too, the address rule still applied: Development. */
  allowHttp?: boolean;
  /** Each fetch's whole time limit (an OpenID check makes two: discovery, then keys). Default 5 s. */
  timeoutMs?: number;
  /** The clock certificates and `validUntil` are judged by. */
  now?: () => number;
  /**
   * The guard's view of the network, for tests that play a public host on loopback: its
   * address rule, its resolver, a certificate authority to trust. Production sets none.
   */
  network?: Pick<GuardedFetchOptions, 'addressRule' | 'lookup' | 'ca'>;
}

/**
 * The pre-flight over HTTP: the connection's identity provider is asked for its
 * OpenID discovery document or SAML metadata through the SSRF guard (guardedFetch), at
 * most 1 MiB each, and no redirect followed, since the sign-ins follow none either
 * (openid-client fetches with `redirect: 'manual'`, the SAML metadata with
 * `redirect: 'error'`): what passes here is what a sign-in will find. A protocol this
 * pre-flight does not know has nothing to check.
 */
export class HttpConnectionPreflight implements ConnectionPreflight, PreflightReport {
  private readonly allowPrivateNetworks: boolean;
  private readonly allowHttp: boolean;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly network: HttpConnectionPreflightOptions['network'];

  constructor(options: HttpConnectionPreflightOptions) {
    this.network = options.network;
    this.allowPrivateNetworks = options.allowPrivateNetworks;
    this.allowHttp = options.allowHttp === true;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
  }

  check(connection: Connection): Promise<PreflightRefusal[]> {
    const settings: Readonly<Record<string, unknown>> = Object.fromEntries(Object.entries(connection.settings));
    return this.run(connection.protocol.key, settings, connection.issuerSetting || 'Authority', this.context());
  }

  /** The same checks on keys that are no connection yet: each one passed, then each refusal. */
  async report(protocol: string, keys: Readonly<Record<string, unknown>>): Promise<PreflightCheck[]> {
    const passed: PreflightCheck[] = [];
    const context = {
      ...this.context(),
      passed: (key: string, text: string) => passed.push({ key, outcome: 'passed', text }),
    };
    const refusals = await this.run(protocol, keys, 'Authority', context);
    return [
      ...passed,
      ...refusals.map((refusal): PreflightCheck => ({ key: refusal.key, outcome: 'failed', text: refusal.reason })),
    ];
  }

  private run(
    protocol: string,
    settings: Readonly<Record<string, unknown>>,
    issuerKey: string,
    context: PreflightContext,
  ): Promise<PreflightRefusal[]> {
    const text = (key: string) => (typeof settings[key] === 'string' ? settings[key] : '');
    switch (protocol) {
      case openIdConnect.key:
        return checkOpenIdProvider(text('Authority'), issuerKey, context);
      case saml2.key:
        return checkSamlProvider(
          {
            MetadataUrl: text('MetadataUrl'),
            IdpMetadata: text('IdpMetadata'),
            IdpEntityId: text('IdpEntityId'),
            MetadataSigningCertificate: text('MetadataSigningCertificate'),
            SignAuthnRequests: settings.SignAuthnRequests === true,
            MetadataMaxBytes:
              typeof settings.MetadataMaxBytes === 'number' ? settings.MetadataMaxBytes : DEFAULT_MAX_BYTES,
          },
          context,
        );
      default:
        return Promise.resolve([]);
    }
  }

  private context(): PreflightContext {
    return {
      now: this.now(),
      fetch: async (url, accept, maxBytes = DEFAULT_MAX_BYTES) => {
        const fetched = await guardedFetch(url, {
          ...this.network,
          allowPrivateNetworks: this.allowPrivateNetworks,
          allowHttp: this.allowHttp,
          timeoutMs: this.timeoutMs,
          maxBytes: Math.min(maxBytes, DEFAULT_MAX_BYTES),
          maxRedirects: 0,
          accept,
        });
        return fetched.text;
      },
    };
  }
}
