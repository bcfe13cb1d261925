import { identityProviderContract } from '../identity-provider-contract.js';
import { oidcHarness } from '../../support/oidc-harness.js';

identityProviderContract(oidcHarness('query'));
identityProviderContract(oidcHarness('form_post'));
