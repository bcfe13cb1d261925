import { amazonHarness, githubHarness, microsoftHarness } from '../../support/social-harness.js';
import { identityProviderContract } from '../identity-provider-contract.js';

identityProviderContract(microsoftHarness);
identityProviderContract(amazonHarness);
identityProviderContract(githubHarness);
