import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encryptAssertion, type EncryptOptions } from '../../scripts/saml/assertion-encryption.js';
import { identityProviderMetadataXml, type ReceivedAuthnRequest } from '../../scripts/saml/authn-request.js';
import {
  assertionXml,
  encodeForPost,
  responseXml,
  signElement,
  type AssertionFields,
  type ResponseFields,
  type SignOptions,
} from '../../scripts/saml/saml-response.js';
import { makeSigningCredential, type SigningCredential } from '../../scripts/saml/signing-credential.js';

/** Test users, by NameID, with the attributes the identity provider releases. */
export const SAML_USERS = {
  admin: {
    nameId: 'admin@example.com',
    attributes: {
      'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name': ['Ada Admin'],
      'urn:oid:0.9.2342.19200300.100.1.3': ['ada@example.com'],
      'http://schemas.microsoft.com/ws/2008/06/identity/claims/role': ['Administrator', 'Auditor'],
      'http://schemas.xmlsoap.org/claims/Group': ['staff', 'ops'],
    },
  },
  user: {
    nameId: 'user@example.com',
    attributes: {
      'urn:oid:2.16.840.1.113730.3.1.241': ['Uma User'],
      'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress': ['uma@example.com'],
    },
  },
} as const;

/** How one response is built: a field to change, and which elements to sign how. */
export interface AnswerOptions {
  user?: keyof typeof SAML_USERS;
  assertion?: Partial<AssertionFields>;
  response?: Partial<ResponseFields>;
  /** Sign the Assertion, the Response, both (default) or nothing. */
  sign?: 'assertion' | 'response' | 'both' | 'none';
  signing?: Partial<SignOptions>;
  /** Replaces the templated assertion with this XML (a vendor-shaped fixture), before it is signed. */
  assertionXml?: string;
  /** Encrypts the assertion (after signing it, before the Response is signed), by hand with node:crypto. */
  encrypt?: EncryptOptions;
  /** Edits the final XML (after signing): the attacks. */
  tamper?: (xml: string) => string;
}

/**
 * An identity provider for the tests that shares no code with samlify: its metadata is
 * served over plain http on loopback (as the startup rules allow outside production), and
 * its responses are written from templates and signed with xml-crypto. The metadata's
 * behaviour can be changed while running (a hanging or failing endpoint, other
 * certificates) to test the fetch, the refresh and key rollover.
 */
export class SamlTestIdentityProvider {
  readonly credential: SigningCredential;
  /** Certificates the metadata lists; the first is `credential`'s. */
  metadataCertificates: string[];
  /** What GET /metadata does. */
  metadataMode: 'serve' | 'hang' | 'fail' = 'serve';
  /** Replaces the metadata document when set. */
  metadataOverride: string | undefined;
  metadataRequests = 0;
  /** List a SingleLogoutService (`sloUrl`) in the metadata. */
  singleLogout = false;
  /** Ask for signed AuthnRequests in the metadata. */
  wantAuthnRequestsSigned = false;

  private constructor(
    private readonly server: Server,
    readonly origin: string,
    credential: SigningCredential,
  ) {
    this.credential = credential;
    this.metadataCertificates = [credential.certificateBody];
  }

  static async start(credential: SigningCredential = makeSigningCredential()): Promise<SamlTestIdentityProvider> {
    let idp: SamlTestIdentityProvider | undefined;
    const server = createServer((req, res) => {
      if (!idp || req.url !== '/metadata') return void res.writeHead(404).end();
      idp.metadataRequests += 1;
      if (idp.metadataMode === 'hang') return; // accepts, never answers
      if (idp.metadataMode === 'fail') return void res.writeHead(500).end('down');
      res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(idp.metadata());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    idp = new SamlTestIdentityProvider(server, `http://127.0.0.1:${port}`, credential);
    return idp;
  }

  get entityId(): string {
    return `${this.origin}/metadata`;
  }

  get metadataUrl(): string {
    return `${this.origin}/metadata`;
  }

  get ssoUrl(): string {
    return `${this.origin}/sso`;
  }

  get sloUrl(): string {
    return `${this.origin}/slo`;
  }

  metadata(): string {
    return (
      this.metadataOverride ??
      identityProviderMetadataXml(this.entityId, this.ssoUrl, this.metadataCertificates, {
        ...(this.singleLogout ? { singleLogoutUrl: this.sloUrl } : {}),
        wantAuthnRequestsSigned: this.wantAuthnRequestsSigned,
      })
    );
  }

  /** The signed response XML to `request` for `audience`, as `options` says. */
  responseXml(request: ReceivedAuthnRequest, audience: string, options: AnswerOptions = {}): string {
    const user = SAML_USERS[options.user ?? 'admin'];
    let assertion =
      options.assertionXml ??
      assertionXml({
        issuer: this.entityId,
        nameId: user.nameId,
        audiences: [audience],
        recipient: request.acsUrl,
        inResponseTo: request.id,
        attributes: Object.fromEntries(Object.entries(user.attributes).map(([name, values]) => [name, [...values]])),
        ...options.assertion,
      });
    const sign = options.sign ?? 'both';
    const signing: SignOptions = { credential: this.credential, ...options.signing };
    if (sign === 'assertion' || sign === 'both') assertion = signElement(assertion, 'Assertion', signing);
    if (options.encrypt) assertion = encryptAssertion(assertion, options.encrypt);
    let response = responseXml(
      { issuer: this.entityId, destination: request.acsUrl, inResponseTo: request.id, ...options.response },
      assertion,
    );
    if (sign === 'response' || sign === 'both') response = signElement(response, 'Response', signing);
    return options.tamper ? options.tamper(response) : response;
  }

  /** The form the identity provider's page POSTs to the ACS. */
  answer(request: ReceivedAuthnRequest, audience: string, options: AnswerOptions = {}): Record<string, string> {
    const form: Record<string, string> = { SAMLResponse: encodeForPost(this.responseXml(request, audience, options)) };
    if (request.relayState !== undefined) form.RelayState = request.relayState;
    return form;
  }

  /**
   * The form of an IdP-initiated sign-in (SAML Profiles 4.1.5): a response that answers no
   * request, neither on the Response nor in the assertion, posted to `acsUrl` with
   * `relayState` (by convention the page to land on) when given.
   */
  unsolicitedAnswer(
    acsUrl: string,
    audience: string,
    options: AnswerOptions = {},
    relayState?: string,
  ): Record<string, string> {
    const nothingAsked = { id: '', issuer: '', acsUrl, relayState: undefined, xml: '' };
    const xml = this.responseXml(nothingAsked, audience, {
      ...options,
      assertion: { inResponseTo: null, ...options.assertion },
      response: { inResponseTo: null, ...options.response },
    });
    const form: Record<string, string> = { SAMLResponse: encodeForPost(xml) };
    if (relayState !== undefined) form.RelayState = relayState;
    return form;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
