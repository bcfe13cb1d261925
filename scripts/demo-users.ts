/**
 * The people of the demo identity providers. Development only: any password is accepted
 * for them, and nothing in src/ imports this.
 */
export interface DemoUser {
  /** The login typed into the identity provider's form; also the OpenID `sub` and the SAML NameID. */
  login: string;
  name: string;
  email: string;
  roles: string[];
  permissions: string[];
}

/** One demo identity provider's people, by login. */
export type DemoUsers = Readonly<Record<string, DemoUser>>;

/** The two people of the deployment's own demo providers (OpenID, SAML, the social vendor servers). */
export type DemoLogin = 'admin' | 'user';

export const DEMO_USERS: Readonly<Record<DemoLogin, DemoUser>> = {
  admin: {
    login: 'admin',
    name: 'Ada Admin',
    email: 'ada@example.test',
    roles: ['Administrator'],
    permissions: ['application.manage'],
  },
  user: { login: 'user', name: 'Uma User', email: 'uma@example.test', roles: [], permissions: [] },
};

/**
 * The people of Acme's identity provider (a customer organization signing in through a
 * SAML connection). Mallory is an account Acme's administrator created with a Globex
 * address: the attack the organization guard stops (docs/connections.md), so Gatehouse
 * refuses her sign-in through Acme's connection.
 */
export const ACME_USERS: DemoUsers = {
  // Acme's IT puts Ada in its `acme-admins` group: Acme's connection maps it to the organization
  // role `admin` (RoleMappings), which opens Acme's administration, never the deployment's.
  ada: { login: 'ada', name: 'Ada Lovelace', email: 'ada@acme.test', roles: ['acme-admins'], permissions: [] },
  mallory: { login: 'mallory', name: 'Mallory Mallet', email: 'mallory@globex.test', roles: [], permissions: [] },
};

/** The people of Globex's identity provider (a customer organization signing in through an OpenID Connect connection). */
export const GLOBEX_USERS: DemoUsers = {
  grace: { login: 'grace', name: 'Grace Hopper', email: 'grace@globex.test', roles: [], permissions: [] },
};

/** The user whose address is `email` (any letter case): how a demo provider fills in the login a sign-in was hinted with. */
export function userWithEmail(users: DemoUsers, email: string | undefined): DemoUser | undefined {
  if (email === undefined) return undefined;
  return Object.values(users).find((user) => user.email.toLowerCase() === email.trim().toLowerCase());
}

/**
 * The people of Initech's OpenID provider: a third customer organization, which the demo
 * does not connect at start. Its connection is added through the administration API, with
 * the `curl` command the demo's terminal prints (docs/demo.md, "The administration API").
 */
export const INITECH_USERS: DemoUsers = {
  peter: { login: 'peter', name: 'Peter Gibbons', email: 'peter@initech.test', roles: [], permissions: [] },
};
