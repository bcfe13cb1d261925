import { identityProviderContract } from '../identity-provider-contract.js';
import { oidcHarness } from '../../support/oidc-harness.js';
import { samlHarnessOf } from '../../support/saml-harness.js';

// The identity-provider contract for a connection of each protocol: its scheme its name,
// its paths under /connections/<name>/, its sign-ins guarded by its organization's domains.
identityProviderContract(oidcHarness('query', { connection: 'Globex' }));
identityProviderContract(samlHarnessOf({ connection: 'Acme' }));
identityProviderContract(samlHarnessOf({ encrypted: true, connection: 'Initech' }));
