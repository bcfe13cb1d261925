import { Namespaces } from './saml-names.js';
import { metadataRefusal } from './saml-refusals.js';
import { attributeOf, childElements } from './saml-xml.js';

/** The key that chooses one identity provider in an aggregate, named in the refusals that concern it. */
export const IDP_ENTITY_ID_KEY = 'ProjectTemplate:Authentication:Providers:Saml2:IdpEntityId';

/**
 * The `EntityDescriptor` of the identity provider to trust, from a metadata document's
 * root: the root itself when it is one `EntityDescriptor`; in a federation aggregate (an
 * `EntitiesDescriptor`, SAML Metadata 2.3.1, groups nested to any depth) the entity whose
 * `entityID` is `idpEntityId`, or, when that is empty, the aggregate's only identity
 * provider (an entity with an `IDPSSODescriptor` for SAML 2.0). A `validUntil` in the past
 * on the root or on any group around the chosen entity refuses it (SAML Metadata 2.1.2:
 * it bounds everything inside). The walk is iterative: no nesting depth can exhaust the stack.
 */
export function selectEntity(root: Element, idpEntityId: string, now: number): Element {
  checkValidUntil(root, now);
  if (root.namespaceURI === Namespaces.metadata && root.localName === 'EntityDescriptor') {
    if (idpEntityId !== '' && attributeOf(root, 'entityID') !== idpEntityId) {
      throw metadataRefusal(`It describes one entity, and not the one ${IDP_ENTITY_ID_KEY} names.`);
    }
    return root;
  }
  if (root.namespaceURI !== Namespaces.metadata || root.localName !== 'EntitiesDescriptor') {
    throw metadataRefusal('Its root is neither a SAML 2.0 EntityDescriptor nor an EntitiesDescriptor.');
  }
  const named: Element[] = [];
  const identityProviders: Element[] = [];
  const groups: Element[] = [root];
  for (let group = groups.pop(); group; group = groups.pop()) {
    groups.push(...childElements(group, Namespaces.metadata, 'EntitiesDescriptor'));
    for (const entity of childElements(group, Namespaces.metadata, 'EntityDescriptor')) {
      if (idpEntityId !== '' && attributeOf(entity, 'entityID') === idpEntityId) named.push(entity);
      if (idpEntityId === '' && isIdentityProvider(entity)) identityProviders.push(entity);
    }
  }
  const entity = idpEntityId === '' ? theOnlyIdentityProvider(identityProviders) : theNamedEntity(named);
  for (let group = entity.parentNode; group && group !== root; group = group.parentNode) {
    checkValidUntil(group as Element, now);
  }
  return entity;
}

function theNamedEntity(named: Element[]): Element {
  const [entity, ...more] = named;
  if (!entity) throw metadataRefusal(`It holds no entity with the entityID ${IDP_ENTITY_ID_KEY} names.`);
  if (more.length > 0) throw metadataRefusal(`It holds the entity ${IDP_ENTITY_ID_KEY} names more than once.`);
  return entity;
}

function theOnlyIdentityProvider(identityProviders: Element[]): Element {
  const [only, ...others] = identityProviders;
  if (!only) throw metadataRefusal('It is an aggregate that holds no SAML 2.0 identity provider.');
  if (others.length > 0) {
    throw metadataRefusal(
      `It is an aggregate of ${identityProviders.length} identity providers: set ${IDP_ENTITY_ID_KEY} to the entityID of yours.`,
    );
  }
  return only;
}

/** An entity with an IDPSSODescriptor for SAML 2.0 (SAML Metadata 2.4.3). */
export function isIdentityProvider(entity: Element): boolean {
  return childElements(entity, Namespaces.metadata, 'IDPSSODescriptor').some((descriptor) =>
    (attributeOf(descriptor, 'protocolSupportEnumeration') ?? '').split(/\s+/).includes(Namespaces.protocol),
  );
}

/** SAML Metadata 2.1.2: nothing in an element whose validUntil has passed may be trusted. */
export function checkValidUntil(element: Element, now: number): void {
  const validUntil = attributeOf(element, 'validUntil');
  if (validUntil !== undefined && !(Date.parse(validUntil) > now)) {
    throw metadataRefusal('Its validUntil lies in the past, or is not a date.');
  }
}
