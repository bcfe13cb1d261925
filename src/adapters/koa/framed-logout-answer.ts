import type { Context } from 'koa';

/**
 * The page a front-channel logout answers with (OpenID Connect Front-Channel Logout 1.0,
 * section 2): the provider's own page shows it in an iframe, usually hidden. Written once:
 * the same few bytes for every request, whether it ended a session or not, so the answer
 * says nothing about which sessions exist, and a flood of them costs no rendering. It
 * loads nothing and runs nothing.
 */
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Signed out</title></head>
<body><p>Signed out.</p></body>
</html>
`;

/**
 * Answers a front-channel logout with the page above. Only the provider's origin may frame
 * it (CSP `frame-ancestors`; `X-Frame-Options` cannot name an origin, so it goes); nothing
 * may load in it; no cache keeps it (spec section 2 asks for `no-store`, set by the caller
 * for every answer at a logout path); no cookie is set. Headers go straight onto the
 * response by their lower-case names, as the front door's do (docs/performance.md).
 */
export function answerFramedLogout(ctx: Context, framedBy: string): void {
  ctx.res.setHeader(
    'content-security-policy',
    `default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors ${framedBy}`,
  );
  ctx.res.removeHeader('x-frame-options');
  ctx.status = 200;
  ctx.type = 'html';
  ctx.body = PAGE;
}
