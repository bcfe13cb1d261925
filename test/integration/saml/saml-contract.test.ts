import { identityProviderContract } from '../identity-provider-contract.js';
import { samlHarnessOf } from '../../support/saml-harness.js';

identityProviderContract(samlHarnessOf());
identityProviderContract(samlHarnessOf({ encrypted: true }));
