/**
 * `npm run routes`: the endpoint inventory under the current configuration: every routed
 * endpoint with its method, path and effective access (anonymous, default policy, named
 * policies, or the fallback), plus the callback and logout paths owned by the authentication
 * middleware.
 */
import { routeTemplate } from '../src/adapters/koa/endpoint.js';
import { createGatehouse } from '../src/bootstrap/gatehouse.js';
import { StartupError, formatProblem } from '../src/bootstrap/startup-error.js';
import { effectiveAccess } from '../src/domain/authorization/decide-access.js';

try {
  const gatehouse = await createGatehouse({ env: { ...process.env, ProjectTemplate__Logging__Level: 'silent' } });
  const fallback = gatehouse.settings.Authorization.RequireAuthenticatedUserByDefault;
  const rows = gatehouse.endpoints.map((e) => [e.method, routeTemplate(e.path), effectiveAccess(e.metadata, fallback)]);
  const widths = [8, Math.max(...rows.map((r) => r[1]?.length ?? 0)) + 2];
  console.log(`${'METHOD'.padEnd(widths[0] ?? 6)}${'PATH'.padEnd(widths[1] ?? 20)}ACCESS`);
  for (const [method = '', path = '', access = ''] of rows)
    console.log(`${method.padEnd(widths[0] ?? 6)}${path.padEnd(widths[1] ?? 20)}${access}`);
  const callbacks = gatehouse.identityProviders.flatMap((p) => [
    `${p.info.callbackPath} (${p.info.scheme})`,
    ...(p.logoutEndpoints ?? []).map(
      (logout) =>
        `${logout.path} (${p.info.scheme} ${logout.channel === 'frame' ? 'front-channel (iframe)' : `${logout.channel}-channel`} logout)`,
    ),
  ]);
  console.log(
    `\nAuthentication: ${gatehouse.settings.Authentication.Enabled ? 'enabled' : 'disabled'}; fallback policy: ${fallback ? 'authenticated user' : 'none (public)'}`,
  );
  console.log(
    `Callback paths owned by the authentication middleware (not endpoints): ${callbacks.length > 0 ? callbacks.join(', ') : 'none'}`,
  );
  process.exit(0);
} catch (error) {
  if (!(error instanceof StartupError)) throw error;
  console.error(`${error.message}\n${error.problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`);
  process.exit(1);
}
