import type { ProviderIdentity } from '../../application/ports/identity-provider.js';
import { endedSessionKeyOf, logoutKeysOf, readNameId, samlSessionRecord, sessionIndexOf } from './saml-name-id.js';
import { Namespaces } from './saml-names.js';
import { childElements } from './saml-xml.js';

/**
 * With SingleLogout on, what a logout needs of a sign-in's signed assertion: the NameID
 * and SessionIndex (kept as the provider session, for the LogoutRequest we send) and the
 * names the identity provider's LogoutRequest will use to find the session, the
 * SessionIndex alone among them: the application refuses the sign-in when a LogoutRequest
 * already ended it (`ProviderLogout.endedSessions`). Undefined when the assertion names
 * no usable NameID.
 */
export function signedInForLogout(
  assertion: Element,
  identityProvider: string,
  serviceProvider: string,
): Pick<ProviderIdentity, 'session' | 'logoutKeys'> | undefined {
  const [subject] = childElements(assertion, Namespaces.assertion, 'Subject');
  const nameId = subject ? readNameId(subject) : undefined;
  if (!nameId) return undefined;
  const sessionIndex = sessionIndexOf(assertion);
  return {
    session: { record: samlSessionRecord(nameId, sessionIndex) },
    logoutKeys: [
      ...logoutKeysOf(identityProvider, serviceProvider, nameId, sessionIndex),
      ...(sessionIndex === undefined ? [] : [endedSessionKeyOf(identityProvider, sessionIndex)]),
    ],
  };
}
