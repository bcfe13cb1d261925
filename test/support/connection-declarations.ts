import { builtInProviders } from '../../src/bootstrap/provider-catalogue.js';
import type { Connection, ConnectionDeclaration } from '../../src/domain/connections/connection.js';
import { readConnection, type ConnectionRulesContext } from '../../src/domain/connections/read-connection.js';
import { unclaimableDomains } from '../../src/domain/connections/unclaimable-domains.js';
import { publicDomainLists } from '../../src/adapters/domain-lists/public-domain-lists.js';

/** The connection rules as the composition root gives them: this build's provider kinds, outside production. */
export const CONNECTION_RULES: ConnectionRulesContext = {
  environment: 'test',
  protocols: builtInProviders,
  unclaimableDomain: unclaimableDomains(publicDomainLists()),
};

/** Where a configured connection's keys are named: `ProjectTemplate:Authentication:Connections:<Name>`. */
export const configuredOrigin = (name: string) => `ProjectTemplate:Authentication:Connections:${name}`;

/** The keys of a valid OpenID Connect connection of `organization`, with `extra` over them (`undefined` removes one). */
export function oidcSection(
  organization: string,
  domains: readonly string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return withoutUndefined({
    Protocol: 'OpenIdConnect',
    Organization: organization,
    Domains: [...domains],
    Authority: `https://login.${organization}.example`,
    ClientId: `${organization}-client`,
    ClientSecret: `${organization}-secret`,
    ...extra,
  });
}

/** The keys of a valid SAML2 connection of `organization`, with `extra` over them (`undefined` removes one). */
export function samlSection(
  organization: string,
  domains: readonly string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return withoutUndefined({
    Protocol: 'Saml2',
    Organization: organization,
    Domains: [...domains],
    EntityId: 'https://app.example.com/saml',
    MetadataUrl: `https://idp.${organization}.example/metadata`,
    ...extra,
  });
}

/** A declaration as a directory hands it over (configured, unless `origin` says otherwise), with no reading problem. */
export function declaration(
  name: string,
  section: Record<string, unknown>,
  origin = configuredOrigin(name),
): ConnectionDeclaration {
  return { name, origin, section, problems: [] };
}

/** The connection a valid declaration makes; throws with its problems otherwise. */
export function connectionOf(name: string, section: Record<string, unknown>, origin?: string): Connection {
  const { connection, problems } = readConnection(declaration(name, section, origin), CONNECTION_RULES);
  if (!connection) throw new Error(`${name} is refused: ${problems.map((p) => `${p.key} ${p.message}`).join('; ')}`);
  return connection;
}

function withoutUndefined(section: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(section).filter(([, value]) => value !== undefined));
}
