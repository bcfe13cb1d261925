/**
 * Names of the built-in authorization policies (docs: Named policies).
 * Application code refers to policies through these constants, never by string literal,
 * so a typo is a compile error rather than an unknown-policy error at request time.
 */
export const PolicyNames = {
  AuthenticatedUser: 'application.AuthenticatedUser',
  AdministratorRole: 'application.Role.Administrator',
  ManageApplicationPermission: 'application.Permission.ManageApplication',
  /** The administration API's connections (`Administration:ManagePermission`, `connections.manage` by default). */
  ManageConnections: 'application.Permission.ManageConnections',
} as const;
