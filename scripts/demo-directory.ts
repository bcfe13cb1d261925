/**
 * Directory sync in `npm run demo` (docs/directory-sync.md): Acme's directory pushes its
 * people and groups to Gatehouse over SCIM at start, as Okta or Entra ID would, with a token
 * made for this run through the administration API; the terminal prints the request that
 * deactivates Ada there, which signs her out of Gatehouse, and the one that makes her active
 * again. The directories are kept in the embedded store (a SQLite file in a temporary
 * folder) where this Node.js has node:sqlite (22.13 and later); on an older one, in a
 * throwaway PostgreSQL server from the binaries `npm install` brought
 * (scripts/local-postgres), which the catalog of connections then uses too. Development
 * only: nothing in src/ imports it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadNodeSqlite } from '../src/adapters/sqlite/node-sqlite.js';
import type { DemoOrganization } from './demo-organizations.js';

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export interface DemoDirectoryStore {
  /** The settings that turn directory sync on, over this store. */
  env: Record<string, string>;
  /** Where the directories are kept, in a few words for the terminal. */
  where: string;
  close(): Promise<void>;
}

/** Directory sync's store for this run: the embedded one where node:sqlite exists, else a throwaway PostgreSQL. */
export async function startDemoDirectoryStore(): Promise<DemoDirectoryStore> {
  if ((await loadNodeSqlite()) !== undefined) {
    const folder = mkdtempSync(join(tmpdir(), 'gatehouse-demo-directory-'));
    const file = join(folder, 'directory.sqlite');
    return {
      env: { ProjectTemplate__Directory__Enabled: 'true', ProjectTemplate__Directory__EmbeddedFile: file },
      where: `the embedded store, ${file}`,
      close: async () => rmSync(folder, { recursive: true, force: true }),
    };
  }
  // Loaded only here: the binaries' helper is the tests' and the bench's too.
  const { startPostgres } = await import('./local-postgres/postgres-server.js');
  const server = await startPostgres(17);
  return {
    env: { ProjectTemplate__Directory__Enabled: 'true', DATABASE_URL: server.connectionString },
    where: `a throwaway PostgreSQL server (Node.js ${process.versions.node} has no node:sqlite for the embedded store)`,
    close: () => server.close(),
  };
}

export interface DemoDirectorySeeded {
  /** Acme's SCIM token, made for this run. */
  token: string;
  baseUrl: string;
  /** How many people and groups Acme's directory pushed. */
  people: number;
  groups: number;
  /** The `curl` that deactivates Ada in Acme's directory (PATCH active false), and the one that makes her active again. */
  deactivate: string[];
  reactivate: string[];
}

/** Acme's people beyond those its identity provider signs in: a directory knows more people than sign in on a given day. */
const MORE_ACME_PEOPLE = [
  { userName: 'charles@acme.test', displayName: 'Charles Babbage', title: 'Engineer', department: 'Engines' },
  { userName: 'mary@acme.test', displayName: 'Mary Somerville', title: 'Analyst', department: 'Research' },
];

/**
 * Pushes Acme's directory once Gatehouse listens: a token through the administration API,
 * then Acme's people (its provider's own, matched to their sign-ins by userName and e-mail,
 * and two more) and its groups, `acme-admins` holding Ada (Acme's connection maps it to its
 * organization role `admin`) and `Engineering`.
 */
export async function seedDemoDirectory(
  appOrigin: string,
  apiKey: string,
  acme: DemoOrganization,
): Promise<DemoDirectorySeeded> {
  const made = await call(`${appOrigin}/api/admin/organizations/${acme.organization}/scim-tokens`, 'POST', apiKey);
  const { token, baseUrl: slashed } = made as { token: string; baseUrl: string };
  const baseUrl = slashed.replace(/\/$/, '');
  const ada = acme.users.ada ?? failed('Acme has no Ada');
  const people = [
    {
      userName: ada.email,
      displayName: ada.name,
      title: 'Mathematician',
      department: 'Engines',
      externalId: ada.login,
    },
    ...MORE_ACME_PEOPLE,
  ];
  const ids: string[] = [];
  for (const person of people) {
    const created = await call(`${baseUrl}/Users`, 'POST', token, {
      schemas: [USER_SCHEMA, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      userName: person.userName,
      ...('externalId' in person ? { externalId: person.externalId } : {}),
      displayName: person.displayName,
      title: person.title,
      emails: [{ value: person.userName, type: 'work', primary: true }],
      active: true,
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: person.department },
    });
    ids.push((created as { id: string }).id);
  }
  const groups = [
    { displayName: 'acme-admins', members: [ids[0]!] },
    { displayName: 'Engineering', members: ids },
  ];
  for (const group of groups) {
    await call(`${baseUrl}/Groups`, 'POST', token, {
      schemas: [GROUP_SCHEMA],
      displayName: group.displayName,
      members: group.members.map((value) => ({ value })),
    });
  }
  const activeCommand = (active: boolean) => [
    `curl -X PATCH ${baseUrl}/Users/${ids[0]}`,
    `-H 'Authorization: Bearer ${token}'`,
    `-H 'Content-Type: application/scim+json'`,
    `-d '${JSON.stringify({ schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', value: { active } }] })}'`,
  ];
  return {
    token,
    baseUrl,
    people: people.length,
    groups: groups.length,
    deactivate: activeCommand(false),
    reactivate: activeCommand(true),
  };
}

async function call(url: string, method: string, bearer: string, body?: unknown): Promise<unknown> {
  const answer = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // The demo's own requests: a refusal is a bug of the demo, said with its status (never the token).
  if (!answer.ok) failed(`the demo's directory push was refused: ${method} ${new URL(url).pathname} ${answer.status}`);
  return answer.json();
}

function failed(message: string): never {
  throw new Error(message);
}
