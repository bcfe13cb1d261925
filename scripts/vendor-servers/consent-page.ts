/**
 * The sign-in and consent page of a vendor-shaped server: choose a demo account, then
 * allow or cancel. Plain HTML with no script, so a browser, Chromium under test and a
 * test's own form parsing all drive it the same way.
 */
import { DEMO_USERS, type DemoLogin } from '../demo-users.js';

export interface ConsentPageInput {
  title: string;
  /** Where the form posts (the authorization endpoint's path). */
  action: string;
  /** The pending authorization request the answer belongs to. */
  request: string;
}

export function consentPage(input: ConsentPageInput): string {
  const accounts = (Object.keys(DEMO_USERS) as DemoLogin[])
    .map(
      (login, index) =>
        `<p><label><input type="radio" name="login" value="${login}"${index === 0 ? ' checked' : ''}> ${escapeHtml(DEMO_USERS[login].name)} (${login})</label></p>`,
    )
    .join('\n      ');
  return page(
    input.title,
    `<form method="post" action="${escapeHtml(input.action)}">
      <input type="hidden" name="request" value="${escapeHtml(input.request)}">
      <p>Sign in as:</p>
      ${accounts}
      <p>The application asks to read your profile and email address.</p>
      <button type="submit" name="decision" value="allow">Allow</button>
      <button type="submit" name="decision" value="deny">Cancel</button>
    </form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<p>${escapeHtml(message)}</p>`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
  <body>
    <h1>${escapeHtml(title)}</h1>
    <p>A local test server shaped like the vendor's sign-in. It is not the vendor.</p>
    ${body}
  </body>
</html>`;
}

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
