/**
 * The sign-in and consent page of a vendor-shaped server: choose a demo account, then
 * allow or cancel. Plain HTML with no script, so a browser, Chromium under test and a
 * test's own form parsing all drive it the same way; the demo's page look
 * (scripts/demo-page.ts).
 */
import { demoPage, escapeHtml } from '../demo-page.js';
import { DEMO_USERS, type DemoLogin } from '../demo-users.js';

export interface ConsentPageInput {
  title: string;
  /** Where the form posts (the authorization endpoint's path). */
  action: string;
  /** The pending authorization request the answer belongs to. */
  request: string;
}

const EYEBROW = 'Local demo server · not the vendor';

export function consentPage(input: ConsentPageInput): string {
  const accounts = (Object.keys(DEMO_USERS) as DemoLogin[])
    .map(
      (login, index) =>
        `<label class="choice"><input type="radio" name="login" value="${login}"${index === 0 ? ' checked' : ''}><span>${escapeHtml(DEMO_USERS[login].name)}<small>${escapeHtml(DEMO_USERS[login].email)}</small></span></label>`,
    )
    .join('\n');
  return demoPage({
    eyebrow: EYEBROW,
    title: input.title,
    body: `<form method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="request" value="${escapeHtml(input.request)}">
<p>A local server shaped like the vendor's sign-in (the same endpoints, fields and errors). Sign in as:</p>
${accounts}
<p class="note">A social account carries no roles: whoever you choose is a plain user in the application, so <code>/Admin</code> says access denied. Ada is an administrator only through the demo OpenID Connect or SAML provider.</p>
<p>The application asks to read your profile and email address.</p>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Cancel</button>
</form>`,
  });
}

export function errorPage(title: string, message: string): string {
  return demoPage({ eyebrow: EYEBROW, title, body: `<p>${escapeHtml(message)}</p>` });
}
