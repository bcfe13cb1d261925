/**
 * Directory sync's paths: mounted only with `Directory:Enabled` (test/integration/directory
 * checks them): SCIM, its tokens in the API and the portal, and the sample page of people.
 */
export function isDirectoryPath(path: string): boolean {
  return (
    path.startsWith('/scim/') ||
    path.includes('/scim-tokens') ||
    path.startsWith('/setup/portal/directory') ||
    path === '/Organizations/:organization/People'
  );
}
