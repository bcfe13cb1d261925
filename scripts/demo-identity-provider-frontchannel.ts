/**
 * OpenID Connect Front-Channel Logout 1.0, provider side, for the demo identity provider.
 * oidc-provider 9 no longer implements it (the feature went in its version 8: the iframes
 * it relies on lose their cookies wherever browsers block third-party cookies), but
 * LemonLDAP::NG and Microsoft Entra ID offer no other way to tell a relying party that
 * the user signed out there, so the demo plays them, as oidc-provider 7 did:
 *
 * - a client registers `frontchannel_logout_uri` (and `frontchannel_logout_session_required`,
 *   which puts the provider session's `sid` in its ID tokens);
 * - discovery says `frontchannel_logout_supported` and `frontchannel_logout_session_supported`;
 * - when the user confirms the sign-out at the end-session page, the answer is a page with
 *   one iframe per client signed out, at `frontchannel_logout_uri?iss=<issuer>&sid=<sid>`,
 *   which goes on to where oidc-provider was sending the browser once they loaded (or
 *   after 2.5 s).
 */
import type Provider from 'oidc-provider';

/** The client metadata of the specification (section 2), which oidc-provider 9 keeps as extra metadata. */
export const FRONTCHANNEL_CLIENT_METADATA = ['frontchannel_logout_uri', 'frontchannel_logout_session_required'];

/** What discovery says (section 3). */
export const FRONTCHANNEL_DISCOVERY = {
  frontchannel_logout_supported: true,
  frontchannel_logout_session_supported: true,
};

/** How long the page waits for the frames before it goes on anyway (oidc-provider 7 waited as long). */
const FRAMES_TIMEOUT_MS = 2500;

interface FrontchannelClient {
  frontchannel_logout_uri?: unknown;
  frontchannel_logout_session_required?: unknown;
  includeSid(): boolean;
}

interface LoadedSession {
  authorizations?: Record<string, { sid?: string }>;
  state?: { clientId?: string };
}

/** The members of oidc-provider used here, typed loosely (it ships no declarations). */
interface ProviderInternals {
  issuer: string;
  use(middleware: (ctx: LogoutContext, next: () => Promise<void>) => Promise<void>): void;
  Session: { get(ctx: LogoutContext): Promise<LoadedSession> };
  Client: { prototype: FrontchannelClient; find(id: string): Promise<FrontchannelClient | undefined> };
}

interface LogoutContext {
  method: string;
  path: string;
  status: number;
  type: string;
  body: unknown;
  response: { get(name: string): string };
  oidc?: { params?: { logout?: unknown } };
}

/** Turns front-channel logout on for `provider`, built with the metadata and discovery above. */
export function enableFrontchannelLogout(oidcProvider: Provider): void {
  const provider = oidcProvider as unknown as ProviderInternals;
  // oidc-provider puts `sid` in ID tokens for back-channel clients only: front-channel ones need it too.
  const { includeSid } = provider.Client.prototype;
  provider.Client.prototype.includeSid = function includeSidForEitherChannel(this: FrontchannelClient) {
    return (
      includeSid.call(this) ||
      (typeof this.frontchannel_logout_uri === 'string' && this.frontchannel_logout_session_required === true)
    );
  };
  provider.use(async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path !== '/session/end/confirm') return next();
    // Read before the confirmation destroys the session: which clients it had, and their sids.
    const session = await provider.Session.get(ctx);
    const authorizations = { ...session.authorizations };
    const initiator = session.state?.clientId;
    await next();
    const location = ctx.response.get('location');
    if (ctx.status !== 303 || !location) return;
    // "Yes, sign me out" ends every client's part of the session; "No" only the one that asked.
    const signedOut = ctx.oidc?.params?.logout ? Object.keys(authorizations) : initiator ? [initiator] : [];
    const frames: string[] = [];
    for (const clientId of signedOut) {
      const client = await provider.Client.find(clientId);
      const uri = client?.frontchannel_logout_uri;
      if (typeof uri !== 'string') continue;
      const target = new URL(uri);
      const sid = authorizations[clientId]?.sid;
      if (client?.frontchannel_logout_session_required === true && sid) {
        target.searchParams.set('iss', provider.issuer);
        target.searchParams.set('sid', sid);
      }
      frames.push(target.href);
    }
    if (frames.length === 0) return;
    ctx.status = 200;
    ctx.type = 'html';
    ctx.body = framesPage(frames, location);
  });
}

/** The page of section 3: the frames, then on to `next` once they all loaded. */
function framesPage(frames: string[], next: string): string {
  const iframes = frames.map((src) => `<iframe hidden src="${escapeHtml(src)}"></iframe>`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Signing out · demo identity provider</title></head>
<body>
<p>Signing you out of the applications you used…</p>
${iframes}
<script>
  var next = ${JSON.stringify(next).replace(/</g, '\\u003c')};
  var frames = document.querySelectorAll('iframe');
  var loaded = 0;
  function goOn() { window.location.replace(next); }
  frames.forEach(function (frame) { frame.onload = function () { loaded += 1; if (loaded === frames.length) goOn(); }; });
  setTimeout(goOn, ${FRAMES_TIMEOUT_MS});
</script>
<noscript><a href="${escapeHtml(next)}">Continue</a></noscript>
</body>
</html>`;
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
