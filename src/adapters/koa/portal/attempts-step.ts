import type { Middleware } from 'koa';
import type { SignInAttempts } from '../../../application/connections/sign-in-attempts.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from '../routes/route-paths.js';
import { portalEndpoint, portalOf } from './portal-guard.js';

export interface AttemptsStepDeps {
  attempts: SignInAttempts;
}

/** The shortest prefix of a subject's hash that tells people apart on the page (the API answers it whole). */
const SHOWN_HASH_LENGTH = 12;

/**
 * "Recent sign-in attempts" (`/setup/portal/attempts`): the portal's own connection's last
 * 100 attempts of the last 30 days, newest first, each with its time, outcome, the refusal's
 * reason in words, the e-mail domain and a short hash of the person: "why can't our people
 * sign in", answered by the IT admin without a ticket. The connection and the organization
 * are the portal session's, never a value the request names.
 */
export function attemptsRoutes(deps: AttemptsStepDeps, guard: Middleware): Endpoint[] {
  return [
    portalEndpoint('GET', RoutePaths.portalAttempts, guard, async (ctx) => {
      const { session } = portalOf(ctx);
      const attempts = await deps.attempts.recent({
        organization: session.organization,
        connection: session.connection,
      });
      await ctx.render('portal/attempts', {
        session,
        csrfToken: session.csrf,
        attempts: attempts.map((attempt) => ({
          ...attempt,
          at: new Date(attempt.at).toISOString(),
          person: attempt.subjectSha256?.slice(0, SHOWN_HASH_LENGTH),
        })),
      });
    }),
  ];
}
