/**
 * The demo identity provider's own pages: sign-in, consent, the sign-out confirmation and
 * errors. oidc-provider has built-in development pages for all of them, but each prints
 * a development-only warning or notice to the terminal, loads a web font from another
 * site and shows debug details; these say plainly that they belong to a demo and who to
 * sign in as.
 *
 * The forms keep the shape of oidc-provider's development pages (a `prompt` field, then
 * `login` and `password`; a "Sign-in" and a "Continue" button; a cancel link ending in
 * `/abort`), which the tests' browser and HTTP drivers use.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { demoPage, escapeHtml } from './demo-page.js';
import { userWithEmail, type DemoUsers } from './demo-users.js';

/**
 * The authentication context classes (`acr`) the demo provider signs people in at: a
 * password, or a password and a one-time code. A client asking for `mfa` in `acr_values`
 * gets the code asked for as well (docs/step-up.md).
 */
export const DEMO_ACR = {
  password: 'urn:gatehouse:demo:acr:password',
  mfa: 'urn:gatehouse:demo:acr:mfa',
} as const;

/** What the pages call the provider unless it is given a name of its own. */
const DEFAULT_NAME = 'Demo identity provider';

/**
 * Answers `<issuerPath>/interaction/<uid>` (GET: the page the provider's prompt needs;
 * POST: its form) and `<issuerPath>/interaction/<uid>/abort`. Returns false for every
 * other request, which belongs to oidc-provider. The login form starts filled in with the
 * user whose address the client sent as `login_hint`, as an organization's provider does
 * when an application found it by the address typed there.
 */
export function demoInteractions(
  provider: Provider,
  issuerPath: string,
  users: DemoUsers,
  name = DEFAULT_NAME,
  /** When a sign-in completing now says the person authenticated (`auth_time`, seconds). */
  authTime: () => number = () => Math.floor(Date.now() / 1000),
  /** True while the provider lets a second factor asked for be skipped (a careless provider, for tests). */
  secondFactorOptional: () => boolean = () => false,
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const route = new RegExp(`^${issuerPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/interaction/([\\w-]+)(/abort)?$`);
  return async (req, res) => {
    const match = route.exec((req.url ?? '').split('?')[0] ?? '');
    if (!match) return false;
    const abort = match[2];
    try {
      if (abort && req.method === 'GET') {
        const result = { error: 'access_denied', error_description: 'End-User aborted interaction' };
        await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
      } else if (req.method === 'GET') {
        const { prompt, params } = await provider.interactionDetails(req, res);
        const hint = typeof params.login_hint === 'string' ? params.login_hint : undefined;
        send(
          res,
          200,
          prompt.name === 'login'
            ? loginPage(
                req.url ?? '',
                { users, name },
                undefined,
                userWithEmail(users, hint)?.login,
                secondFactorAsk(params, secondFactorOptional()),
              )
            : consentPage(req.url ?? '', name),
        );
      } else if (req.method === 'POST') {
        await submit(provider, req, res, { users, name, authTime, secondFactorOptional });
      } else {
        send(res, 405, page('Not allowed', '<p>This page takes GET and POST only.</p>'));
      }
    } catch (error) {
      // Mostly an expired or unknown interaction (its cookie is gone): start again at the application.
      const message = error instanceof Error ? error.message : 'unknown error';
      send(
        res,
        400,
        page(
          'Sign-in expired',
          `<p>${escapeHtml(message)}.</p><p>Go back to the application and sign in again.</p>`,
          name,
        ),
      );
    }
    return true;
  };
}

/** The provider's people and what its pages call it. */
interface Pages {
  users: DemoUsers;
  name: string;
  authTime?: () => number;
  secondFactorOptional?: () => boolean;
}

async function submit(provider: Provider, req: IncomingMessage, res: ServerResponse, pages: Pages): Promise<void> {
  const form = await readForm(req);
  const details = await provider.interactionDetails(req, res);
  if (form.get('prompt') === 'login' && details.prompt.name === 'login') {
    const login = form.get('login') ?? '';
    const code = (form.get('otp') ?? '').trim();
    const ask = secondFactorAsk(details.params, pages.secondFactorOptional?.() ?? false);
    // Another person at a step-up: oidc-provider would end this provider session and lose
    // the sign-in in progress (its interaction), so the demo says why it cannot go on.
    const signedInHere = details.session?.accountId;
    const problem = !Object.hasOwn(pages.users, login)
      ? `There is no demo user "${login}".`
      : code !== '' && !/^[0-9]{6}$/.test(code)
        ? 'A one-time code is 6 digits.'
        : ask?.required === true && code === ''
          ? 'The application asks for a second factor: enter a one-time code (any 6 digits here).'
          : ask !== undefined && signedInHere !== undefined && signedInHere !== login
            ? `The application asks ${signedInHere} to confirm it is them. To use another account, sign out of the application first.`
            : undefined;
    if (problem !== undefined) {
      send(res, 200, loginPage(req.url ?? '', pages, problem, login, ask));
      return;
    }
    // RFC 8176: a password and a one-time code are two factors.
    const secondFactor = code !== '';
    const result = {
      login: {
        accountId: login,
        amr: secondFactor ? ['pwd', 'otp', 'mfa'] : ['pwd'],
        acr: secondFactor ? DEMO_ACR.mfa : DEMO_ACR.password,
        ...(pages.authTime ? { ts: pages.authTime() } : {}),
      },
    };
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  } else if (form.get('prompt') === 'consent' && details.prompt.name === 'consent') {
    // Grants what the client asked for, as oidc-provider's development consent page does.
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session?.accountId, clientId: details.params.client_id });
    if (!grant) throw new Error('the grant of this sign-in is gone');
    const missing = details.prompt.details;
    if (Array.isArray(missing.missingOIDCScope)) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (Array.isArray(missing.missingOIDCClaims)) grant.addOIDCClaims(missing.missingOIDCClaims);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  } else {
    send(
      res,
      400,
      page('Unexpected form', '<p>This form does not belong to the current step of the sign-in.</p>', pages.name),
    );
  }
}

/** Why the application sends the person back to sign in again (a step-up), and whether the code is then required. */
interface SecondFactorAsk {
  reason: string;
  required: boolean;
}

/**
 * A step-up the client asks for: the demo's two-factor class in `acr_values`, or `max_age`
 * (a sign-in recent enough: OpenID has no request parameter for an `amr` value, so the
 * demo reads a `max_age` as an application's step-up and asks for the code as well, as
 * Gatehouse's demo step-up of /Admin needs). Undefined for a first sign-in.
 */
function secondFactorAsk(params: Record<string, unknown>, optional: boolean): SecondFactorAsk | undefined {
  const classAsked = typeof params.acr_values === 'string' && params.acr_values.split(' ').includes(DEMO_ACR.mfa);
  const maxAge =
    typeof params.max_age === 'string' || typeof params.max_age === 'number' ? Number(params.max_age) : NaN;
  if (!classAsked && !Number.isFinite(maxAge)) return undefined;
  const recent = Number.isFinite(maxAge) ? ` from the last ${minutes(maxAge)}` : '';
  return {
    reason: `The application asks you to confirm it is you: the page you opened needs a sign-in${recent} with a second factor. Sign in again with your password and a one-time code.`,
    required: !optional,
  };
}

function minutes(seconds: number): string {
  return seconds % 60 === 0 && seconds >= 60
    ? `${seconds / 60} minute${seconds === 60 ? '' : 's'}`
    : `${seconds} second${seconds === 1 ? '' : 's'}`;
}

function loginPage(action: string, pages: Pages, problem?: string, login = '', ask?: SecondFactorAsk): string {
  const required = ask?.required === true;
  const rows = Object.values(pages.users)
    .map(
      (user) =>
        `<li><code>${escapeHtml(user.login)}</code> ${escapeHtml(user.name)}${user.roles.length > 0 ? `: ${escapeHtml(user.roles.join(', '))}` : ', no roles'}</li>`,
    )
    .join('');
  return page(
    ask ? 'Confirm it is you' : 'Sign in',
    `${ask ? `<p class="note">${escapeHtml(ask.reason)}</p>` : ''}<form autocomplete="off" action="${escapeHtml(action)}" method="post">
  <input type="hidden" name="prompt" value="login"/>
  ${problem ? `<p class="problem">${escapeHtml(problem)}</p>` : ''}
  <label>Login <input required type="text" name="login" value="${escapeHtml(login)}"${login === '' ? ' autofocus' : ''}></label>
  <label>Password <input required type="password" name="password" placeholder="anything"${login === '' ? '' : ' autofocus'}></label>
  <label>${required ? 'Confirm with a one-time code (required)' : 'Also confirm with a one-time code (optional)'} <input type="text" name="otp" inputmode="numeric" autocomplete="one-time-code" placeholder="any 6 digits"${required ? ' required' : ''}></label>
  <button type="submit">Sign-in</button>
</form>
<p>Demo users (any password):</p><ul>${rows}</ul>
<p class="small"><a href="${escapeHtml(action)}/abort">Cancel</a></p>`,
    pages.name,
  );
}

function consentPage(action: string, name: string): string {
  return page(
    'Share your profile?',
    `<p>The application asks for your name, email, roles and permissions.</p>
<form autocomplete="off" action="${escapeHtml(action)}" method="post">
  <input type="hidden" name="prompt" value="consent"/>
  <button type="submit" autofocus>Continue</button>
</form>
<p class="small"><a href="${escapeHtml(action)}/abort">Cancel</a></p>`,
    name,
  );
}

/** oidc-provider's `features.rpInitiatedLogout.logoutSource`: its form (with its anti-forgery field) and our wording. */
export async function logoutSource(ctx: { body: unknown; oidc?: { client?: unknown } }, form: string): Promise<void> {
  // Sent by an application (RP-initiated logout: its client is known), the person has left
  // it; opened directly, they have left nothing yet.
  const question =
    ctx.oidc?.client === undefined
      ? 'Sign out of the demo identity provider? The applications that asked to be told (back- or front-channel logout) sign you out too.'
      : 'You have left the application. Sign out of the demo identity provider as well?';
  ctx.body = page(
    'Sign out?',
    `${form}<p>${question}</p>
<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
<button type="submit" form="op.logoutForm" class="secondary">No, stay signed in</button>`,
  );
}

/** oidc-provider's `features.rpInitiatedLogout.postLogoutSuccessSource`: a sign-out without a way back to the application. */
export async function postLogoutSuccessSource(ctx: { body: unknown }): Promise<void> {
  ctx.body = page('Signed out', '<p>You have been signed out of the demo identity provider.</p>');
}

/** oidc-provider's `renderError`: the OAuth error and its description, nothing else. */
export async function renderError(ctx: { type: string; body: unknown }, out: Record<string, unknown>): Promise<void> {
  ctx.type = 'html';
  const rows = ['error', 'error_description']
    .filter((key) => typeof out[key] === 'string')
    .map((key) => `<p><strong>${key}</strong>: ${escapeHtml(String(out[key]))}</p>`)
    .join('');
  ctx.body = page('Something went wrong', rows);
}

function page(title: string, body: string, name = DEFAULT_NAME): string {
  return demoPage({ eyebrow: `${name} · development only`, title, body });
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > 10_000) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}
