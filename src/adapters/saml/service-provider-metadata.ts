import { XMLSerializer } from '@xmldom/xmldom';
import { GatehouseError } from '../../domain/errors.js';
import { ADVERTISED_ENCRYPTION_METHODS, EncryptionNamespaces } from './encryption-algorithms.js';
import { Namespaces } from './saml-names.js';
import { childElements, parseSamlXml } from './saml-xml.js';

/** Children of an SPSSODescriptor that come before its KeyDescriptors (SAML Metadata 2.4.1, RoleDescriptorType). */
const BEFORE_KEYS = new Set([`${Namespaces.signature} Signature`, `${Namespaces.metadata} Extensions`]);

/**
 * Our metadata (samlify writes it) with one `<md:KeyDescriptor use="encryption">` per
 * encryption certificate (SAML Metadata 2.4.1.1), each listing the algorithms we decrypt
 * (`<md:EncryptionMethod>`, most preferred first), placed after any other KeyDescriptor.
 * An identity provider that reads our metadata (Shibboleth does) then encrypts to one of
 * them; listing two is a key rollover.
 */
export function withEncryptionKeys(metadataXml: string, certificateBodies: readonly string[]): string {
  if (certificateBodies.length === 0) return metadataXml;
  const document = parseSamlXml(metadataXml, () => new GatehouseError('config.invalid', 'Unreadable SP metadata.'));
  const [descriptor] = childElements(document.documentElement, Namespaces.metadata, 'SPSSODescriptor');
  if (!descriptor) throw new GatehouseError('config.invalid', 'The SP metadata has no SPSSODescriptor.');
  let before: Node | null = descriptor.firstChild;
  while (before && isElement(before) && (BEFORE_KEYS.has(nameOf(before)) || isKeyDescriptor(before))) {
    before = before.nextSibling;
  }
  for (const body of certificateBodies) {
    const keyDescriptor = parseSamlXml(encryptionKeyDescriptor(body)).documentElement;
    descriptor.insertBefore(document.importNode(keyDescriptor, true), before);
  }
  return new XMLSerializer().serializeToString(document);
}

function encryptionKeyDescriptor(certificateBody: string): string {
  const methods = ADVERTISED_ENCRYPTION_METHODS.map(({ algorithm, digest, mask }) => {
    const digestMethod = digest ? `<ds:DigestMethod Algorithm="${digest}"/>` : '';
    const maskMethod = mask ? `<xenc11:MGF Algorithm="${mask}"/>` : '';
    return `<md:EncryptionMethod Algorithm="${algorithm}">${digestMethod}${maskMethod}</md:EncryptionMethod>`;
  }).join('');
  return (
    `<md:KeyDescriptor xmlns:md="${Namespaces.metadata}" xmlns:ds="${Namespaces.signature}" xmlns:xenc11="${EncryptionNamespaces.xenc11}" use="encryption">` +
    `<ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificateBody}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>` +
    methods +
    `</md:KeyDescriptor>`
  );
}

function isElement(node: Node): node is Element {
  return node.nodeType === 1;
}

function nameOf(element: Element): string {
  return `${element.namespaceURI ?? ''} ${element.localName}`;
}

function isKeyDescriptor(element: Element): boolean {
  return element.namespaceURI === Namespaces.metadata && element.localName === 'KeyDescriptor';
}
