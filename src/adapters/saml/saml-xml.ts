import { DOMParser } from '@xmldom/xmldom';
import { base64Length, checkMessageSize, type MessageSize } from './message-size.js';
import { samlRefusal } from './saml-refusals.js';

/**
 * Decodes a POST-binding message (SAML Bindings 3.5.4: base64 of the XML, line breaks
 * allowed) of at most `size` (message-size.ts): the base64 text's length is checked before
 * it is decoded, the XML's bytes and markup before anything parses it
 * (`idp.message_too_large`). Strict: characters outside the base64 alphabet, bad padding
 * or bytes that are not UTF-8 are `malformed`, never skipped the way
 * `Buffer.from(..., 'base64')` skips them.
 */
export function decodePostedMessage(
  encoded: string,
  size: MessageSize,
  malformed: () => Error = () => samlRefusal('idp.response_malformed'),
): string {
  const compact = encoded.replace(/[\r\n\t ]/g, '');
  if (compact.length > base64Length(size.xmlBytes)) throw samlRefusal('idp.message_too_large');
  if (compact === '' || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) throw malformed();
  let xml: string;
  try {
    xml = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(compact, 'base64'));
  } catch {
    throw malformed();
  }
  checkMessageSize(xml, size);
  return xml;
}

/**
 * Whether the text holds a document type declaration or an entity declaration. `<!` starts
 * only comments, CDATA sections and declarations; a DOCTYPE or ENTITY anywhere (even inside
 * a comment, where it is harmless) counts, so a document is refused rather than parsed.
 */
export function declaresDocumentType(text: string): boolean {
  return /<!\s*(DOCTYPE|ENTITY)/i.test(text);
}

/**
 * Parses a SAML document (a message or metadata). A document type declaration is refused
 * before any parser sees it, so no DTD is ever read and no entity (external or a
 * billion-laughs chain) is ever expanded: SAML messages have no business carrying one
 * (SAML Core 1.3, SAML Security Considerations 6.3.1). Any parser complaint is a refusal.
 */
export function parseSamlXml(
  text: string,
  refusal: () => Error = () => samlRefusal('idp.response_malformed'),
): Document {
  if (declaresDocumentType(text)) throw refusal();
  let failed = false;
  const complain = () => {
    failed = true;
  };
  let document: Document;
  try {
    document = new DOMParser({
      errorHandler: { warning: complain, error: complain, fatalError: complain },
    }).parseFromString(text, 'text/xml');
  } catch {
    throw refusal();
  }
  if (failed || !document.documentElement || document.doctype) throw refusal();
  return document;
}

/** The element children of `parent` with this namespace and local name, in document order. */
export function childElements(parent: Element, namespace: string, localName: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (isElement(node) && node.namespaceURI === namespace && node.localName === localName) found.push(node);
  }
  return found;
}

/** Every element below `root` with this namespace and local name, in document order (`root` itself is not below it). */
export function descendants(root: Element | Document, namespace: string, localName: string): Element[] {
  return elementsBelow(root, (element) => element.namespaceURI === namespace && element.localName === localName);
}

/** Every element below `root` with this local name, in any namespace (or none): what a wrapping attack would hide. */
export function descendantsByLocalName(root: Element | Document, localName: string): Element[] {
  return elementsBelow(root, (element) => element.localName === localName);
}

/**
 * Every element below `root` that `keep` keeps, in document order. An iterative walk over
 * the element children alone: no nesting depth can exhaust the stack, and a document of
 * many elements is walked about three times faster than through xmldom's
 * `getElementsByTagNameNS` (its generic walker visits every node through callbacks), which
 * matters for what is walked before a signature is checked.
 */
export function elementsBelow(root: Element | Document, keep: (element: Element) => boolean): Element[] {
  const found: Element[] = [];
  const pending: Element[] = [];
  const pushChildren = (parent: Node) => {
    for (let child = parent.lastChild; child; child = child.previousSibling) if (isElement(child)) pending.push(child);
  };
  pushChildren(root);
  for (let element = pending.pop(); element; element = pending.pop()) {
    if (keep(element)) found.push(element);
    pushChildren(element);
  }
  return found;
}

/** The attribute's value, or undefined when absent (xmldom answers "" for a missing attribute). */
export function attributeOf(element: Element, name: string): string | undefined {
  return element.hasAttribute(name) ? (element.getAttribute(name) ?? undefined) : undefined;
}

/**
 * The text of an element, every text node joined: a comment inside a value
 * (`admin@example.com<!---->.evil.example`) can never cut it short.
 */
export function textOf(element: Element): string {
  return (element.textContent ?? '').trim();
}

function isElement(node: Node): node is Element {
  return node.nodeType === 1;
}
