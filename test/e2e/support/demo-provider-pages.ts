import type { Page } from 'playwright-core';

/**
 * oidc-provider's built-in development pages (devInteractions), as the demo identity
 * provider serves them: a login form that takes any password (and, with `oneTimeCode`, its
 * second factor), then a consent form.
 */
export async function signInAtDemoProvider(page: Page, login: 'admin' | 'user', oneTimeCode?: string): Promise<void> {
  await fillDemoLogin(page, login, oneTimeCode);
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** The demo provider's login form alone: it asks again at a step-up, where consent was given already. */
export async function fillDemoLogin(page: Page, login: 'admin' | 'user', oneTimeCode?: string): Promise<void> {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  if (oneTimeCode !== undefined) await page.locator('input[name="otp"]').fill(oneTimeCode);
  await page.getByRole('button', { name: 'Sign-in' }).click();
}

/** The RP-initiated logout confirmation ("Do you want to sign-out from ...?"). */
export async function confirmSignOutAtDemoProvider(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Yes, sign me out' }).click();
}
