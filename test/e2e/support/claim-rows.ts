import type { Page } from 'playwright-core';

/** The starter page's claims table as [type, value] rows. */
export async function claimRows(page: Page): Promise<string[][]> {
  return page
    .locator('table tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => Array.from(row.querySelectorAll('td')).map((cell) => cell.textContent?.trim() ?? '')),
    );
}
