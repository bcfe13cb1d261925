import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's script, from node_modules (a devDependency): the suite fetches nothing. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Impacts a page must have none of: a person using a screen reader or a keyboard is stopped, or much slowed. */
const BLOCKING = ['serious', 'critical'];

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  /** Each failing element: its selector, then what is wrong with it. */
  nodes: string[];
}

/**
 * Runs every axe-core rule (WCAG 2.x A and AA, and its best practices) over the page as it
 * is now, and answers the violations of impact serious or critical. The script is given
 * through the DevTools protocol (`page.evaluate`), which the page's `script-src 'self'`
 * does not govern: an inline `<script>` (addScriptTag's `content`) would be refused, as it
 * should be. Evaluated as strings: the project's tsconfig has no DOM library.
 */
export async function blockingViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((results) =>
    results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact || '',
      help: violation.help,
      nodes: violation.nodes.map((node) => node.target.join(' ') + ': ' + (node.failureSummary || '').replace(/\\s+/g, ' ')),
    })))`)) as AxeViolation[];
  return violations.filter((violation) => BLOCKING.includes(violation.impact));
}
