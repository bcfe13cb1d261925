const section = (provider: string, keys: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(keys).map(([name, value]) => [
      `ProjectTemplate__Authentication__Providers__${provider}__${name}`,
      value,
    ]),
  );

/** Loopback port 1: nothing listens there, so anything that tries to reach a stand-in provider is refused at once. */
const NOWHERE = 'https://127.0.0.1:1';

/**
 * Stand-in values for the keys the startup rules require of each built-in provider (the
 * keys `npm run new` leaves to supply), naming nothing that answers. The suites that check
 * the posture this project ships (as configured: which providers are enabled, the challenge
 * scheme, the fallback) start it with these, so they pass before an operator has supplied
 * real keys and never reach the operator's identity provider once they have: the
 * configuration they test is their own. Environment variables, so they win over `.env`
 * and config/appsettings.json; a disabled provider ignores its values. A provider an
 * application adds itself needs a line here (the stand-in test names what is missing).
 */
export const STAND_IN_PROVIDER_KEYS: Readonly<Record<string, string>> = {
  ...section('OpenIdConnect', {
    Authority: `${NOWHERE}/stand-in-issuer`,
    ClientId: 'stand-in-client',
    ClientSecret: 'stand-in-client-secret',
  }),
  ...section('Saml2', {
    EntityId: 'https://stand-in.example/saml',
    MetadataUrl: `${NOWHERE}/stand-in-metadata`,
  }),
  ...Object.assign(
    {},
    ...['Social1', 'Social2', 'Social3'].map((provider) =>
      section(provider, { ClientId: 'stand-in-client', ClientSecret: 'stand-in-client-secret' }),
    ),
  ),
};
