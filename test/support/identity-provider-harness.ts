import type { Gatehouse } from '../../src/bootstrap/gatehouse.js';
import type { ProviderKey } from '../../src/domain/settings/settings.js';

/**
 * One identity adapter under the identity-provider contract suite: a real provider of its
 * protocol on loopback (oidc-provider, an xml-crypto-signed SAML identity provider, a
 * vendor-shaped OAuth server) and a Gatehouse configured against it.
 */
export interface ProviderHarness {
  /** Shown in test names: `OpenIdConnect (oidc-provider)`. */
  name: string;
  key: ProviderKey;
  /**
   * What Gatehouse makes of the answer `deny` produces: an OAuth `access_denied` is the person
   * cancelling (`idp.sign_in_cancelled`, a calm page); a SAML status is the provider's refusal
   * (`idp.provider_error`, the error page).
   */
  deniedCode: 'idp.sign_in_cancelled' | 'idp.provider_error';
  /** True when the provider can end a user's session on its side and notify Gatehouse (its runs have `signOutAtProvider`). */
  signsOutAtProvider?: boolean;
  /** Starts the provider and a Gatehouse (memory store, `NODE_ENV=test`) configured against it; `env` adds settings. */
  start(env?: Record<string, string>): Promise<HarnessRun>;
}

/** What the provider sends back to the callback path, as a browser would deliver it (not yet delivered). */
export interface ProviderAnswer {
  method: 'GET' | 'POST';
  /** Absolute URL on the app's public origin (the query included for a GET). */
  url: string;
  /** The form fields of a POSTed answer (SAMLResponse and RelayState, or an OAuth form_post). */
  form?: Record<string, string>;
}

export interface HarnessRun {
  app: { url: string; gatehouse: Gatehouse; logs: string[] };
  /** The scheme `/External/Challenge?provider=` takes. */
  scheme: string;
  /**
   * Plays the user and the provider after a challenge: from the challenge's redirect to the
   * answer the provider sends back. `deny` makes the provider refuse the sign-in (OAuth
   * `error=access_denied`, a SAML status other than success).
   */
  answer(challengeLocation: string, outcome?: 'accept' | 'deny'): Promise<ProviderAnswer>;
  /** The application claims the signed-in user has after normalization. */
  expected: { subject: string; name?: string; email?: string };
  /**
   * How many answers have been redeemed so far: token requests the OAuth provider received,
   * assertions a SAML adapter recorded as used. A refused answer must not move it.
   */
  redeemed(): Promise<number>;
  /**
   * Makes Gatehouse wait on a provider that accepts the connection and never answers, and
   * returns Gatehouse's response to that request (a challenge that needs metadata, or a
   * callback that needs the token endpoint). The provider answers again afterwards.
   */
  provokeTimeout(): Promise<Response>;
  /**
   * For a provider that sends logout messages (`receiveLogout`): the user signs out at the
   * provider itself, in the browser that produced `answer`, and the provider tells
   * Gatehouse through its own channel (OpenID Connect back-channel logout, a SAML
   * LogoutRequest). Resolves once Gatehouse has taken the message.
   */
  signOutAtProvider?(answer: ProviderAnswer): Promise<void>;
  /** Values that must never appear in a log line (client secret, codes, tokens, SAML messages) for this answer. */
  secretsOf(answer: ProviderAnswer): string[];
  close(): Promise<void>;
}
