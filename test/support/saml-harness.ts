import { readRedirectedAuthnRequest } from '../../scripts/saml/authn-request.js';
import { logoutRequestXml } from '../../scripts/saml/logout-messages.js';
import { encodeForPost, newSamlId, signElement } from '../../scripts/saml/saml-response.js';
import { replayKey } from '../../src/adapters/saml/assertion-replay-cache.js';
import type { HarnessRun, ProviderAnswer, ProviderHarness } from './identity-provider-harness.js';
import { makeSigningCredential } from '../../scripts/saml/signing-credential.js';
import { encryptionSettings, singleLogoutSettings, SP_ENTITY_ID, startSamlApp } from './saml-app.js';
import { SamlTestIdentityProvider } from './saml-identity-provider.js';

const SENTINEL = 'SENTINEL-saml-harness-attribute-91d2';

/**
 * SAML2 under the identity-provider contract: an identity provider that signs its
 * responses with xml-crypto from templates (no samlify on that side), answering the
 * AuthnRequest of each challenge with a POSTed response; with `encrypted`, Gatehouse has an
 * encryption key and every assertion arrives encrypted to it (node:crypto, by hand).
 * "Redeemed" is what the adapter recorded as used: the replay records of the assertion IDs
 * this provider issued. Single logout is on (Gatehouse has a signing pair): signing out at
 * the provider is the identity provider's LogoutRequest for the answer's NameID and
 * SessionIndex, signed with xml-crypto and POSTed through the browser (HTTP-POST binding).
 */
export function samlHarnessOf(options: { encrypted?: boolean } = {}): ProviderHarness {
  const encryption = options.encrypted ? makeSigningCredential({ commonName: 'gatehouse-sp-encryption' }) : undefined;
  const signing = makeSigningCredential({ commonName: 'gatehouse-sp-signing' });
  const keys = { ...(encryption ? encryptionSettings(encryption) : {}), ...singleLogoutSettings(signing) };
  return {
    name: encryption
      ? 'Saml2 (xml-crypto-signed identity provider, assertions encrypted)'
      : 'Saml2 (xml-crypto-signed identity provider)',
    key: 'Saml2',
    signsOutAtProvider: true,
    async start(env = {}): Promise<HarnessRun> {
      const idp = await SamlTestIdentityProvider.start();
      const app = await startSamlApp(idp, { ...keys, ...env });
      const issued: string[] = [];
      // The SessionIndex of each answer (the test identity provider uses the assertion ID).
      const sessionIndexes = new WeakMap<ProviderAnswer, string>();
      return {
        app,
        scheme: 'Saml2',
        async answer(location: string, outcome: 'accept' | 'deny' = 'accept'): Promise<ProviderAnswer> {
          const request = readRedirectedAuthnRequest(location);
          const assertionId = newSamlId();
          issued.push(assertionId);
          const form = idp.answer(
            request,
            SP_ENTITY_ID,
            outcome === 'deny'
              ? {
                  sign: 'none',
                  response: {
                    statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
                    secondStatusCode: 'urn:oasis:names:tc:SAML:2.0:status:AuthnFailed',
                  },
                }
              : {
                  ...(encryption ? { encrypt: { certificatePem: encryption.certificatePem } } : {}),
                  assertion: {
                    assertionId,
                    attributes: {
                      'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name': ['Ada Admin'],
                      'urn:oid:0.9.2342.19200300.100.1.3': ['ada@example.com'],
                      'urn:oid:2.5.4.42': [SENTINEL],
                    },
                  },
                },
          );
          const answer: ProviderAnswer = { method: 'POST', url: request.acsUrl, form };
          sessionIndexes.set(answer, assertionId);
          return answer;
        },
        expected: { subject: 'admin@example.com', name: 'Ada Admin', email: 'ada@example.com' },
        async redeemed() {
          const records = await Promise.all(
            issued.map((id) => app.gatehouse.stores.sessions.get(replayKey(idp.entityId, id))),
          );
          return records.filter((record) => record !== undefined).length;
        },
        async provokeTimeout() {
          // The running app keeps the metadata it loaded: a second instance, started while the
          // provider accepts connections and never answers, is what has to wait for it.
          idp.metadataMode = 'hang';
          const fresh = await startSamlApp(idp, { ...keys, ...env });
          try {
            const response = await fetch(`${fresh.url}/External/Challenge?provider=Saml2`, {
              redirect: 'manual',
              headers: { accept: 'text/html' },
            });
            return new Response(await response.text(), { status: response.status, headers: response.headers });
          } finally {
            idp.metadataMode = 'serve';
            await fresh.close();
          }
        },
        async signOutAtProvider(answer: ProviderAnswer) {
          const sessionIndex = sessionIndexes.get(answer);
          if (sessionIndex === undefined) throw new Error('no provider session behind this answer');
          const provider = app.gatehouse.identityProviders.find((candidate) => candidate.info.key === 'Saml2');
          const logoutUrl = `${app.url}${provider?.logoutEndpoints?.[0]?.path ?? 'no logout path'}`;
          const xml = logoutRequestXml({
            issuer: idp.entityId,
            destination: logoutUrl,
            nameId: 'admin@example.com',
            sessionIndexes: [sessionIndex],
          });
          const response = await fetch(logoutUrl, {
            method: 'POST',
            redirect: 'manual',
            headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
            body: new URLSearchParams({
              SAMLRequest: encodeForPost(signElement(xml, 'LogoutRequest', { credential: idp.credential })),
            }),
          });
          if (response.status !== 302) throw new Error(`the LogoutRequest was answered ${response.status}`);
        },
        secretsOf: (answer: ProviderAnswer) => [
          answer.form?.SAMLResponse?.slice(0, 64) ?? 'no SAMLResponse',
          answer.form?.RelayState ?? 'no RelayState',
          SENTINEL,
        ],
        async close() {
          await app.close();
          await idp.close();
        },
      };
    },
  };
}
