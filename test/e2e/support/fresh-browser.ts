import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PageWatch } from './page-watch.js';

/** A fresh profile (no cookies from another user) at a desktop width, with its watchers. */
export async function freshBrowser(
  browser: Browser,
  width = 1200,
): Promise<{ context: BrowserContext; page: Page; watch: PageWatch }> {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  const page = await context.newPage();
  return { context, page, watch: await PageWatch.attach(context, page) };
}

/** A Gatehouse log line at pino's error or fatal level (50, 60). */
export function isErrorLine(line: string): boolean {
  return /"level":(50|60)\b/.test(line);
}
