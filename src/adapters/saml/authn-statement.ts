import type { ProvenAuthentication } from '../../domain/authorization/authentication-need.js';
import { methodsOfContextClasses } from '../../domain/claims/authn-context-methods.js';
import { Namespaces } from './saml-names.js';
import { childElements, textOf } from './saml-xml.js';

/**
 * The attribute Entra ID and ADFS use to list the methods of a sign-in (values such as
 * `http://schemas.microsoft.com/claims/multipleauthn`); Entra ID keeps
 * PasswordProtectedTransport as the class even after a second factor and says it here.
 */
export const AUTHN_METHODS_REFERENCES = 'http://schemas.microsoft.com/claims/authnmethodsreferences';

/**
 * What the signed assertion's AuthnStatement (SAML Core 2.7.2) proves of the
 * authentication: its AuthnInstant, and its AuthnContextClassRef (the `acr`), turned into
 * `amr` values by `table`, with the Microsoft methods attribute read through the same table.
 * Only the first AuthnStatement counts (a response carries one per sign-in); a missing or
 * malformed instant is no time at all, which fails any age requirement.
 */
export function provenByAssertion(
  assertion: Element,
  claims: Readonly<Record<string, readonly string[]>>,
  table: Readonly<Record<string, readonly string[]>>,
): ProvenAuthentication {
  const [statement] = childElements(assertion, Namespaces.assertion, 'AuthnStatement');
  const instant = statement?.getAttribute('AuthnInstant') ?? '';
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(instant) ? Date.parse(instant) : NaN;
  const [context] = statement ? childElements(statement, Namespaces.assertion, 'AuthnContext') : [];
  const [classRef] = context ? childElements(context, Namespaces.assertion, 'AuthnContextClassRef') : [];
  const contextClass = classRef ? textOf(classRef).trim() : '';
  const listed = Object.hasOwn(claims, AUTHN_METHODS_REFERENCES) ? (claims[AUTHN_METHODS_REFERENCES] ?? []) : [];
  return {
    time: Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined,
    methods: methodsOfContextClasses(table, [...(contextClass === '' ? [] : [contextClass]), ...listed]),
    contextClass: contextClass === '' ? undefined : contextClass,
  };
}
