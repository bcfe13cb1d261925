import type { Page } from 'playwright-core';

/**
 * oidc-provider's built-in development pages (devInteractions), as the demo identity
 * provider serves them: a login form that takes any password, then a consent form.
 */
export async function signInAtDemoProvider(page: Page, login: 'admin' | 'user'): Promise<void> {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** The RP-initiated logout confirmation ("Do you want to sign-out from ...?"). */
export async function confirmSignOutAtDemoProvider(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Yes, sign me out' }).click();
}
