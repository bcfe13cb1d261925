/**
 * The two demo people every demo identity provider signs in: the OpenID provider, the
 * SAML identity provider and the social vendor servers. Development only: any password is
 * accepted for them, and nothing in src/ imports this.
 */
export interface DemoUser {
  /** The login typed into the dev login form; also the `sub`. */
  login: 'admin' | 'user';
  name: string;
  email: string;
  roles: string[];
  permissions: string[];
}

export type DemoLogin = DemoUser['login'];

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
