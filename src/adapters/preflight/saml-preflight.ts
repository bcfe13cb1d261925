import { X509Certificate } from 'node:crypto';
import type { PreflightRefusal } from '../../application/ports/connection-preflight.js';
import { isGatehouseError } from '../../domain/errors.js';
import { FetchRefusal } from '../outbound/fetch-refusal.js';
import { IDP_ENTITY_ID_KEY } from '../saml/federation-metadata.js';
import type { MetadataTrust } from '../saml/identity-provider-metadata.js';
import { MAX_IDP_METADATA_BYTES } from '../saml/metadata-limits.js';
import type { Saml2Settings } from '../saml/saml2-settings.js';
import { Namespaces } from '../saml/saml-names.js';
import { attributeOf, descendants, parseSamlXml } from '../saml/saml-xml.js';
import { readPemCertificate, type SigningCertificate } from '../saml/signing-certificate.js';
import { instant, quoteShort, type PreflightContext } from './preflight-context.js';

/** The keys of a SAML connection the pre-flight reads. */
export type SamlPreflightKeys = Pick<
  Saml2Settings,
  | 'MetadataUrl'
  | 'IdpMetadata'
  | 'IdpEntityId'
  | 'MetadataMaxBytes'
  | 'MetadataSigningCertificate'
  | 'SignAuthnRequests'
>;

const METADATA_URL = 'MetadataUrl';
const IDP_METADATA = 'IdpMetadata';
const IDP_ENTITY_ID = 'IdpEntityId';
const ACCEPT = 'application/samlmetadata+xml, application/xml, text/xml';

/**
 * A SAML connection's identity provider, as a sign-in will find it: the metadata at
 * `MetadataUrl` (or the document `IdpMetadata` holds, fetching nothing), parsed by the
 * same reader the sign-ins use (readMetadata: no DTD, the entity `IdpEntityId` names,
 * `validUntil` not past, an IDPSSODescriptor for SAML 2.0 with at least one signing
 * certificate, the document's signature when `MetadataSigningCertificate` asks for one),
 * and beyond what the reader asks, no signing certificate expired: each one that is, is
 * named by its subject and end of validity. A refusal about the document names the key it
 * came from.
 */
export async function checkSamlProvider(
  keys: SamlPreflightKeys,
  context: PreflightContext,
): Promise<PreflightRefusal[]> {
  const passed = (key: string, text: string) => context.passed?.(key, text);
  const given = keys.IdpMetadata.trim() !== '';
  const source = given ? IDP_METADATA : METADATA_URL;
  let xml: string;
  if (given) {
    if (Buffer.byteLength(keys.IdpMetadata) > MAX_IDP_METADATA_BYTES) {
      return [{ key: IDP_METADATA, reason: `The metadata is larger than ${MAX_IDP_METADATA_BYTES / 1024} KiB.` }];
    }
    xml = keys.IdpMetadata;
  } else {
    try {
      xml = await context.fetch(keys.MetadataUrl, ACCEPT, keys.MetadataMaxBytes);
    } catch (error) {
      if (!(error instanceof FetchRefusal)) throw error;
      return [{ key: METADATA_URL, reason: `The metadata could not be fetched: ${error.reason}.` }];
    }
    passed(METADATA_URL, 'The metadata was fetched.');
  }
  let root: Element;
  try {
    root = parseSamlXml(xml, () => new Error('not well-formed')).documentElement;
  } catch {
    return [{ key: source, reason: 'The metadata is not a well-formed XML document without a DTD.' }];
  }
  passed(source, 'The metadata is a well-formed XML document.');
  const idpEntityId = keys.IdpEntityId.trim();
  if (idpEntityId !== '') {
    const entityRefusal = namedEntityRefusal(root, idpEntityId);
    if (entityRefusal) return [entityRefusal];
  }
  const signer = keys.MetadataSigningCertificate.trim();
  const trust: MetadataTrust = {
    idpEntityId,
    signingCertificate: signer === '' ? undefined : readPemCertificate(signer),
    signsAuthnRequests: keys.SignAuthnRequests,
  };
  if (signer !== '' && !trust.signingCertificate) {
    return [{ key: 'MetadataSigningCertificate', reason: 'The MetadataSigningCertificate is not a PEM certificate.' }];
  }
  try {
    // Loaded when first needed, as the SAML adapter itself is (saml2.ts): an ES module then,
    // whose worker thread (for documents over 256 KiB) finds its own file under any loader.
    const { readMetadata } = await import('../saml/metadata-reader.js');
    const metadata = await readMetadata(xml, context.now, trust);
    passed(IDP_ENTITY_ID, `The metadata describes the identity provider ${quoteShort(metadata.entityId)}.`);
    passed(source, `Its sign-in address (the HTTP-Redirect binding) is ${quoteShort(metadata.singleSignOnUrl)}.`);
    for (const certificate of metadata.signingCertificates.filter((each) => each.notAfter >= context.now)) {
      passed(
        source,
        `Its signing certificate ${subjectOf(certificate)} is valid until ${instant(certificate.notAfter)}.`,
      );
    }
    return metadata.signingCertificates
      .filter((certificate) => certificate.notAfter < context.now)
      .map((certificate) => ({
        key: source,
        reason: `The metadata's signing certificate ${subjectOf(certificate)} expired on ${instant(certificate.notAfter)}.`,
      }));
  } catch (error) {
    if (!isGatehouseError(error) || !error.safe) throw error;
    // The reader's reasons name the deployment's own key (Providers:Saml2:IdpEntityId): a connection's is its own.
    const aboutEntity = error.message.includes(IDP_ENTITY_ID_KEY);
    return [
      {
        key: aboutEntity ? IDP_ENTITY_ID : source,
        reason: error.message.replaceAll(IDP_ENTITY_ID_KEY, IDP_ENTITY_ID),
      },
    ];
  }
}

/** The refusal when no EntityDescriptor of the document carries the entityID declared. */
function namedEntityRefusal(root: Element, idpEntityId: string): PreflightRefusal | undefined {
  const isEntity = root.namespaceURI === Namespaces.metadata && root.localName === 'EntityDescriptor';
  const entities = [...(isEntity ? [root] : []), ...descendants(root, Namespaces.metadata, 'EntityDescriptor')];
  if (entities.some((entity) => attributeOf(entity, 'entityID') === idpEntityId)) return undefined;
  const found = isEntity ? attributeOf(root, 'entityID') : undefined;
  return {
    key: IDP_ENTITY_ID,
    reason:
      found === undefined
        ? 'The metadata holds no entity with the entityID IdpEntityId names.'
        : `The metadata describes the entity ${quoteShort(found)}, not the one IdpEntityId names.`,
  };
}

function subjectOf(certificate: SigningCertificate): string {
  try {
    return quoteShort(new X509Certificate(certificate.pem).subject.split('\n').join(', '));
  } catch {
    return '(unreadable subject)';
  }
}
