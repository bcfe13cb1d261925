import type { Context } from 'koa';
import type { AuthenticationNeed } from '../../domain/authorization/authentication-need.js';
import type { Principal } from '../../domain/claims/principal.js';
import { validateReturnUrl } from '../../domain/return-url.js';
import { PROBLEM_JSON_TYPE, sendJson } from './json-answer.js';
import { wantsJson } from './problem-details.js';

/** A step_up decision, as the middleware answers it. */
export interface StepUpAnswer {
  /** The policies that need it (the `stepUp` parameter of the challenge). */
  policies: readonly string[];
  need: AuthenticationNeed;
  reasons: readonly string[];
}

/**
 * Answers a request that would pass with a stronger or more recent sign-in (docs/step-up.md):
 * - an API client: 401 with `WWW-Authenticate: Bearer error="insufficient_user_authentication"`
 *   and the need (RFC 9470 section 3: `max_age`, `acr_values`), and problem details
 *   (`auth.step_up_required`) naming where to send the user (`challenge`);
 * - a browser: to the challenge of the provider it signed in with, asking for the need,
 *   and back to the page (a GET's own URL; for another method, the page the form was on,
 *   when the Referer names one of this site's pages, else `/`).
 */
export function answerStepUp(ctx: Context, principal: Principal, answer: StepUpAnswer, publicOrigin: string): void {
  const detail = `This page needs ${answer.reasons.join(' and ')}.`;
  const challenge =
    `/External/Challenge?provider=${encodeURIComponent(principal.scheme)}` +
    `&stepUp=${encodeURIComponent(answer.policies.join(','))}`;
  if (wantsJson(ctx)) {
    ctx.status = 401;
    ctx.set('WWW-Authenticate', bearerStepUpChallenge(answer.need, detail));
    const { maxAgeSeconds, contextClasses } = answer.need;
    sendJson(
      ctx,
      {
        type: 'about:blank',
        title: 'A stronger or more recent sign-in is required',
        status: 401,
        detail,
        code: 'auth.step_up_required',
        ...(maxAgeSeconds === undefined ? {} : { max_age: maxAgeSeconds }),
        ...(contextClasses === undefined ? {} : { acr_values: contextClasses.join(' ') }),
        ...(answer.need.methods === undefined ? {} : { amr_values: answer.need.methods }),
        // For a front end: send the user here, with its own returnUrl, to step up.
        challenge,
      },
      PROBLEM_JSON_TYPE,
    );
    return;
  }
  const returnUrl = ctx.method === 'GET' || ctx.method === 'HEAD' ? ctx.originalUrl : formPage(ctx, publicOrigin);
  ctx.redirect(`${challenge}&returnUrl=${encodeURIComponent(validateReturnUrl(returnUrl))}`);
}

/**
 * RFC 9470 section 3 (on RFC 6750 3): the values are quoted strings, `max_age` a number;
 * the description keeps only the characters RFC 6750 allows in it (no `"` or `\`).
 */
export function bearerStepUpChallenge(need: AuthenticationNeed, description: string): string {
  const parts = [
    'error="insufficient_user_authentication"',
    `error_description="${description.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '')}"`,
  ];
  if (need.contextClasses !== undefined) {
    parts.push(`acr_values="${need.contextClasses.join(' ').replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '')}"`);
  }
  if (need.maxAgeSeconds !== undefined) parts.push(`max_age=${need.maxAgeSeconds}`);
  return `Bearer ${parts.join(', ')}`;
}

/** The page a form was posted from, when the Referer names a page of this site; else the home page. Never another site. */
function formPage(ctx: Context, publicOrigin: string): string {
  const referer = ctx.get('referer');
  if (referer === '' || !URL.canParse(referer)) return '/';
  const url = new URL(referer);
  const origin = publicOrigin || `${ctx.protocol}://${ctx.host}`;
  return url.origin === origin ? `${url.pathname}${url.search}` : '/';
}
