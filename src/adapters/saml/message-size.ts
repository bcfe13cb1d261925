import { samlRefusal } from './saml-refusals.js';

/**
 * How much of a SAML message Gatehouse reads before any parser sees it. Everything done
 * before a signature is checked is done for anyone, so the bounds sit a few times above
 * what real messages need, not at what a parser can take. What a parser costs grows with
 * the number of elements and attributes more than with the bytes (xmldom: about 2 µs an
 * element; 128 KiB of empty elements is 80 ms, the same bytes of text 1 ms), so both are
 * bounded: the XML's UTF-8 bytes, and its markup, counted as the `<` and `=` characters in
 * it (each element has at least one `<`, each attribute one `=`), before it is parsed.
 * Measured with scripts/bench/hostile-saml.ts (it prints them): docs/providers/saml2.md, Message size.
 */
export interface MessageSize {
  /** The most UTF-8 bytes of XML read. */
  xmlBytes: number;
  /** The most `<` and `=` characters in it. */
  markup: number;
}

/**
 * A Response at the ACS. The vendors' responses are 5-7 KiB with 100-150 of markup; one
 * signed twice, with 150 group IDs, 60 two-valued attributes and its assertion encrypted,
 * is 48 KiB (36 KiB and about 900 of markup unencrypted, the decrypted assertion). The
 * densest real markup, typed attribute values as Okta writes them (one mark in 34 bytes),
 * would put about 3,900 in 128 KiB: the markup bound is twice that.
 */
export const RESPONSE_SIZE: MessageSize = { xmlBytes: 128 * 1024, markup: 8192 };

/**
 * A LogoutRequest or LogoutResponse at the single logout path, either binding. A
 * LogoutRequest with a 256-character NameID, both qualifiers and 32 SessionIndexes of 64
 * characters is 4.2 KiB; signed with an enveloped signature and its certificate, 6.3 KiB,
 * with about 120 of markup.
 */
export const LOGOUT_MESSAGE_SIZE: MessageSize = { xmlBytes: 16 * 1024, markup: 1024 };

/** The length of the base64 text of `bytes` bytes (padded). */
export function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}

/** Refuses `xml` (`idp.message_too_large`) when it exceeds `size` in bytes or in markup; the text itself is never quoted. */
export function checkMessageSize(xml: string, size: MessageSize): void {
  // A UTF-16 code unit is at least one UTF-8 byte: the length alone refuses most.
  if (xml.length > size.xmlBytes || Buffer.byteLength(xml, 'utf8') > size.xmlBytes) {
    throw samlRefusal('idp.message_too_large');
  }
  // indexOf searches natively: several times faster than a loop over the characters.
  let markup = 0;
  for (const mark of ['<', '=']) {
    for (let index = xml.indexOf(mark); index !== -1; index = xml.indexOf(mark, index + 1)) {
      if (++markup > size.markup) throw samlRefusal('idp.message_too_large');
    }
  }
}
