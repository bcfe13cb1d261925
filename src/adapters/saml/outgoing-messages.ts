import { randomBytes } from 'node:crypto';
import { Bindings, NameIdFormats, Namespaces, STATUS_SUCCESS } from './saml-names.js';
import type { SamlNameId } from './saml-name-id.js';
import type { AuthenticationNeed } from '../../domain/authorization/authentication-need.js';

/**
 * The messages this service provider sends, written from templates (SAML Core 3.4.1,
 * 3.7.1, 3.7.2): every value escaped, IDs of 160 random bits (SAML Core 1.3.4 asks for
 * at least 128), times in UTC. They go out with the HTTP-Redirect binding
 * (redirect-binding.ts), which signs the query, not the XML.
 */
export function newRequestId(): string {
  return `_${randomBytes(20).toString('hex')}`;
}

const iso = (ms: number) => new Date(ms).toISOString();
const open = (name: string, id: string, now: number, destination: string, extra = '') =>
  `<samlp:${name} xmlns:samlp="${Namespaces.protocol}" xmlns:saml="${Namespaces.assertion}" ID="${id}" Version="2.0" IssueInstant="${iso(now)}" Destination="${escapeXml(destination)}"${extra}>`;

export function authnRequestXml(fields: {
  id: string;
  now: number;
  destination: string;
  issuer: string;
  acsUrl: string;
  /** SAML Core 3.4.1: the subject the request is about, as a hint (the address typed at discovery). */
  loginHint?: string;
  /**
   * A step-up: ForceAuthn="true" (the identity provider must authenticate the person
   * again, not reuse its session: SAML has no max_age), and the context classes wanted,
   * as a RequestedAuthnContext with Comparison="exact" (SAML Core 3.3.2.2.1).
   */
  stepUp?: AuthenticationNeed;
}): string {
  const classes = fields.stepUp?.contextClasses ?? [];
  return (
    open(
      'AuthnRequest',
      fields.id,
      fields.now,
      fields.destination,
      `${fields.stepUp ? ' ForceAuthn="true"' : ''} ProtocolBinding="${Bindings.post}" AssertionConsumerServiceURL="${escapeXml(fields.acsUrl)}"`,
    ) +
    `<saml:Issuer>${escapeXml(fields.issuer)}</saml:Issuer>` +
    (fields.loginHint === undefined
      ? ''
      : `<saml:Subject><saml:NameID Format="${NameIdFormats.emailAddress}">${escapeXml(fields.loginHint)}</saml:NameID></saml:Subject>`) +
    `<samlp:NameIDPolicy Format="${NameIdFormats.unspecified}" AllowCreate="true"/>` +
    (classes.length === 0
      ? ''
      : `<samlp:RequestedAuthnContext Comparison="exact">${classes
          .map((contextClass) => `<saml:AuthnContextClassRef>${escapeXml(contextClass)}</saml:AuthnContextClassRef>`)
          .join('')}</samlp:RequestedAuthnContext>`) +
    `</samlp:AuthnRequest>`
  );
}

export function logoutRequestXml(fields: {
  id: string;
  now: number;
  /** SAML Core 3.7.1: the time after which the request is to be discarded. */
  notOnOrAfter: number;
  destination: string;
  issuer: string;
  nameId: SamlNameId;
  sessionIndex: string | undefined;
}): string {
  const { nameId } = fields;
  const attribute = (name: string, value: string | undefined) =>
    value === undefined ? '' : ` ${name}="${escapeXml(value)}"`;
  return (
    open('LogoutRequest', fields.id, fields.now, fields.destination, ` NotOnOrAfter="${iso(fields.notOnOrAfter)}"`) +
    `<saml:Issuer>${escapeXml(fields.issuer)}</saml:Issuer>` +
    `<saml:NameID${attribute('Format', nameId.format)}${attribute('NameQualifier', nameId.nameQualifier)}${attribute('SPNameQualifier', nameId.spNameQualifier)}>${escapeXml(nameId.value)}</saml:NameID>` +
    (fields.sessionIndex === undefined
      ? ''
      : `<samlp:SessionIndex>${escapeXml(fields.sessionIndex)}</samlp:SessionIndex>`) +
    `</samlp:LogoutRequest>`
  );
}

export function logoutResponseXml(fields: {
  id: string;
  now: number;
  destination: string;
  issuer: string;
  inResponseTo: string;
}): string {
  return (
    open(
      'LogoutResponse',
      fields.id,
      fields.now,
      fields.destination,
      ` InResponseTo="${escapeXml(fields.inResponseTo)}"`,
    ) +
    `<saml:Issuer>${escapeXml(fields.issuer)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${STATUS_SUCCESS}"/></samlp:Status>` +
    `</samlp:LogoutResponse>`
  );
}

export function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
