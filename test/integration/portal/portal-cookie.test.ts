import { expect } from 'chai';
import { startAdminHarness } from '../../support/admin-api.js';
import { setupLinksPath } from '../../support/setup-portal.js';

const PUBLIC_ORIGIN = 'https://app.example.com';

/**
 * The portal session's cookie as each environment writes it, through a whole Gatehouse: in
 * production `__Secure-` (never `__Host-`, which demands `Path=/`) and `Secure`, behind a
 * TLS-terminating proxy; in development and test neither, so that plain http on a
 * developer's machine keeps working. Its other attributes are the same everywhere.
 */
describe("the setup portal's cookie in each environment", function () {
  this.timeout(60_000);

  const cases: ReadonlyArray<{
    environment: string;
    env: Record<string, string>;
    name: string;
    secure: boolean;
  }> = [
    {
      environment: 'production',
      env: { ProjectTemplate__Hosting__PublicOrigin: PUBLIC_ORIGIN, ProjectTemplate__Hosting__TrustProxy: 'true' },
      name: '__Secure-gatehouse.sid.portal',
      secure: true,
    },
    {
      environment: 'production',
      env: {
        ProjectTemplate__Hosting__PublicOrigin: PUBLIC_ORIGIN,
        ProjectTemplate__Hosting__TrustProxy: 'true',
        ProjectTemplate__Session__CookieName: '__Host-app.sid',
      },
      name: '__Secure-app.sid.portal',
      secure: true,
    },
    { environment: 'development', env: {}, name: 'gatehouse.sid.portal', secure: false },
    { environment: 'test', env: {}, name: 'gatehouse.sid.portal', secure: false },
  ];

  for (const { environment, env, name, secure } of cases) {
    it(`is ${name}, ${secure ? '' : 'not '}Secure, in ${environment}${env.ProjectTemplate__Session__CookieName ? ` with the session cookie ${env.ProjectTemplate__Session__CookieName}` : ''}`, async () => {
      const harness = await startAdminHarness(['acme'], { NODE_ENV: environment, ...env });
      try {
        const origin = env.ProjectTemplate__Hosting__PublicOrigin ?? harness.app.url;
        // Behind the proxy that ends TLS in production: it says the request came over https.
        const proxied: Record<string, string> = secure ? { 'x-forwarded-proto': 'https' } : {};
        const made = await harness.api('POST', setupLinksPath('acme'), {}, proxied);
        expect(made.status).to.equal(201);
        const link = new URL(((await made.json()) as { url: string }).url);
        expect(link.origin).to.equal(origin);

        const opened = await fetch(`${harness.app.url}${link.pathname}`, {
          method: 'POST',
          redirect: 'manual',
          headers: { origin, ...proxied },
        });
        expect(opened.status).to.equal(303);
        const cookies = opened.headers.getSetCookie();
        expect(cookies, 'one cookie, the portal’s').to.have.length(1);
        const [pair, ...attributes] = cookies[0]!.split(/;\s*/);
        expect(pair!.slice(0, pair!.indexOf('='))).to.equal(name);
        const flags = attributes.map((attribute) => attribute.toLowerCase());
        expect(flags.includes('secure'), 'Secure').to.equal(secure);
        expect(flags).to.include.members(['path=/setup/portal', 'samesite=strict', 'httponly']);

        // The portal reads the cookie it wrote, under that name.
        const overview = await fetch(`${harness.app.url}/setup/portal`, { headers: { cookie: pair!, ...proxied } });
        expect(overview.status).to.equal(200);
      } finally {
        await harness.close();
      }
    });
  }
});
