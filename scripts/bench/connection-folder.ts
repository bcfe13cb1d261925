import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A connections folder as a deployment with many customers has it: `count` files, SAML2
 * and OpenID Connect alternating, each valid in the production posture (https identity
 * providers that are never contacted: metadata and discovery load on a connection's first
 * sign-in), each organization with a domain of its own and, for OpenID Connect, a client
 * secret of its own. Written afresh into `dir`; returns `dir`.
 */
export function writeConnectionFolder(dir: string, count: number): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (let index = 0; index < count; index++) {
    const name = `org-${index}`;
    writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(connectionFile(name, index), null, 2)}\n`);
  }
  return dir;
}

/** One organization's connection: the keys an operator writes for a customer. */
export function connectionFile(name: string, index: number): Record<string, unknown> {
  const common = {
    Organization: name,
    DisplayName: `Organization ${index}`,
    Domains: [`${name}.example`, `*.${name}.example`],
  };
  return index % 2 === 0
    ? {
        Protocol: 'Saml2',
        ...common,
        EntityId: `https://app.example/connections/${name}/saml2/acs`,
        MetadataUrl: `https://idp.${name}.example/app/saml/metadata`,
      }
    : {
        Protocol: 'OpenIdConnect',
        ...common,
        Authority: `https://login.${name}.example/tenant/v2.0`,
        ClientId: `gatehouse-${name}`,
        ClientSecret: randomBytes(24).toString('base64url'),
      };
}
