import { social2 } from '../adapters/amazon/social2.js';
import { social3 } from '../adapters/github/social3.js';
import { social1 } from '../adapters/microsoft/social1.js';
import { openIdConnect } from '../adapters/oidc/open-id-connect.js';
import type { ProviderRecord } from '../adapters/provider-record.js';
import { saml2 } from '../adapters/saml/saml2.js';

/**
 * The identity providers this build ships, in the order the login page lists them: the
 * one list of providers. Everything provider-specific (settings, defaults, schema,
 * startup rules, claim mappings, the adapter) comes from these records; add a provider by
 * adding its record here (docs/architecture.md, "Adding an identity provider").
 */
export const builtInProviders: readonly ProviderRecord[] = [openIdConnect, saml2, social1, social2, social3];
