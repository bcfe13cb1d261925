import { identityProviderContract } from '../identity-provider-contract.js';
import { samlHarness } from '../../support/saml-harness.js';

identityProviderContract(samlHarness);
