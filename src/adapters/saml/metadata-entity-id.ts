import { Namespaces } from './saml-names.js';
import { attributeOf, parseSamlXml } from './saml-xml.js';

/**
 * The entityID of a metadata document that describes one entity (its root an
 * `EntityDescriptor`): the identity provider a downloaded metadata file is about, which a
 * connection given that file names in `IdpEntityId`. Undefined for an aggregate, or for a
 * document the reader refuses (the pre-flight then says why).
 */
export function singleEntityIdOf(xml: string): string | undefined {
  let root: Element;
  try {
    root = parseSamlXml(xml, () => new Error('not well-formed')).documentElement;
  } catch {
    return undefined;
  }
  if (root.namespaceURI !== Namespaces.metadata || root.localName !== 'EntityDescriptor') return undefined;
  const entityId = attributeOf(root, 'entityID')?.trim();
  return entityId === undefined || entityId === '' || entityId.length > 1024 ? undefined : entityId;
}
