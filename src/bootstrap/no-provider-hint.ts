import type { Environment } from '../domain/settings/settings.js';

/**
 * What the person who just ran `npm start` should read when authentication is on but no
 * identity provider is: nobody can sign in, and the two ways on (the demo, outside
 * production; a provider's keys, which the login page shows and docs/providers/ describes).
 * Undefined when someone can sign in, or when authentication is off on purpose.
 */
export function noProviderHint(
  authenticationEnabled: boolean,
  providerCount: number,
  environment: Environment,
): string | undefined {
  if (!authenticationEnabled || providerCount > 0) return undefined;
  return [
    'No sign-in provider is enabled, so nobody can sign in yet.',
    ...(environment === 'production' ? [] : ['To see sign-in work now, stop this and run `npm run demo`.']),
    'To turn a provider on, set its keys (the login page shows those of OpenID Connect;',
    'docs/providers/openid-connect.md, saml2.md and social.md list every key and what to register).',
  ].join(' ');
}
