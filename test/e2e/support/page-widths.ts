import { expect } from 'chai';
import type { Page } from 'playwright-core';

/** A phone (iPhone 12-15), a tablet held upright, a laptop. */
export const WIDTHS = [390, 768, 1280] as const;

/**
 * Shows the page already loaded in `page` at each width, without reloading it (so a page
 * that can be seen once, like the sign-out notice, is checked at every width), saves a
 * full-page screenshot `<name>-<width>.png` to `artifacts`, and fails when the document
 * is wider than the viewport: sideways scrolling on a phone.
 */
export async function expectFitsEveryWidth(page: Page, name: string, artifacts: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    // Measured in the page after the next frame, so the new width's layout is in place (a
    // string: whether the DOM's types are loaded depends on which libraries are installed).
    const scrollWidth = Number(
      await page.evaluate(
        'new Promise((resolve) => requestAnimationFrame(() => resolve(document.documentElement.scrollWidth)))',
      ),
    );
    await page.screenshot({ path: `${artifacts}${name}-${width}.png`, fullPage: true });
    expect(scrollWidth, `document width of ${name} at ${width} px (${page.url()})`).to.be.at.most(width);
  }
}
