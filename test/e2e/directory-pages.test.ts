/**
 * Issue 47: directory sync's two pages in a real browser (Debian's chromium through
 * playwright-core), at a laptop's width (1280 px) and a phone's (390 px), on a whole
 * Gatehouse syncing directories on PostgreSQL (test/support/directory-app.ts).
 *
 * The setup portal's optional "Directory sync" step: an IT admin, in a portal session opened
 * from a setup link, follows the step's link, sees the SCIM base URL, makes a token shown once
 * (its Copy button puts it on the clipboard and says so), sees it listed by id only, then the
 * directory's first push (the test makes it with the token) as "People received" and "Last
 * reached", and revokes the token, which the directory can no longer use.
 *
 * The sample application's page of an organization's people: a person of Acme signs in
 * through its connection (the login page's e-mail form, then Acme's OpenID provider), follows
 * "People at acme", and sees the people its directory pushed, the deactivated marked
 * inactive, searches by a part of a name, and pages through more than 50.
 *
 * Every state is checked with axe-core (no serious or critical violation), fits the width,
 * and shows no console error or CSP violation. Screenshots in
 * test-artifacts/e2e/directory-<width>-<state>.png and people-<width>-<state>.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DOMAIN, startDirectoryApp, type DirectoryApp } from '../support/directory-app.js';
import { scimClient, type ScimRequest } from '../support/scim-client.js';
import { makeSetupLink } from '../support/setup-portal.js';
import { within } from '../support/within.js';
import { blockingViolations, type AxeViolation } from './support/axe.js';
import { launchChromium } from './support/chromium.js';
import { signInAtDemoProvider } from './support/demo-provider-pages.js';
import { PageWatch } from './support/page-watch.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/e2e/', import.meta.url));
const WIDTHS = [1280, 390] as const;
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
/** A page of people (src/adapters/koa/routes/people-routes.ts). */
const PAGE_SIZE = 50;

interface PushedPerson {
  userName: string;
  displayName: string;
  active: boolean;
  title?: string;
  department?: string;
}

/** Acme's directory, as the people page's tests push it: the demo provider's `admin` (who signs in) among them. */
const NAMED_PEOPLE: PushedPerson[] = [
  { userName: `ada@${DOMAIN}`, displayName: 'Ada Admin', active: true },
  {
    userName: `alan@${DOMAIN}`,
    displayName: 'Alan Turing',
    active: true,
    title: 'Principal Cryptanalysis Engineer',
    department: 'Hut 8, Government Code and Cypher School',
  },
  { userName: `edsger.wybe.dijkstra@${DOMAIN}`, displayName: 'Edsger Dijkstra', active: false },
];
/** Enough more that the page pages. */
const NUMBERED_PEOPLE: PushedPerson[] = Array.from({ length: 53 }, (_, n) => ({
  userName: `person-${String(n + 1).padStart(2, '0')}@${DOMAIN}`,
  displayName: `Person ${String(n + 1).padStart(2, '0')}`,
  active: true,
}));

describe("directory sync's pages in the browser: the portal's directory step and the people page (chromium, PostgreSQL)", function () {
  this.timeout(60_000);
  let directory: DirectoryApp;
  let browser: Browser;
  let app: string;
  const open: BrowserContext[] = [];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [directory, browser] = await Promise.all([startDirectoryApp(), launchChromium()]);
    app = directory.app.url;
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((context) => context.close()));
  });
  after(async () => {
    await browser?.close();
    await directory?.close();
  });

  /** A fresh profile at `width` that may visit the app and Acme's OpenID provider, and nothing else. */
  async function freshPage(width: number): Promise<{ context: BrowserContext; page: Page; watch: PageWatch }> {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    open.push(context);
    const page = await context.newPage();
    const hosts = ['127.0.0.1', new URL(directory.provider.issuer).hostname];
    return { context, page, watch: await PageWatch.attach(context, page, hosts) };
  }

  /** Checks the page as it is now, into `findings`: a screenshot, axe-core, and its width. */
  function checker(
    page: Page,
    width: number,
    prefix: string,
    findings: Array<{ page: string; violations: AxeViolation[] }>,
  ) {
    return async (state: string) => {
      await page.screenshot({ path: join(ARTIFACTS, `${prefix}-${width}-${state}.png`), fullPage: true });
      findings.push({ page: `${state} (${page.url()})`, violations: await blockingViolations(page) });
      const scrollWidth = Number(await page.evaluate('document.documentElement.scrollWidth'));
      expect(scrollWidth, `the width of ${prefix} ${state} at ${width} px`).to.be.at.most(width);
    };
  }

  describe("the setup portal's directory step", () => {
    /** The value beside a term of the step's test ("People received", "Last reached ..."). */
    const fact = async (page: Page, term: string) =>
      (
        (await page.locator('#directory-test .portal-value', { hasText: term }).locator('dd').textContent()) ?? ''
      ).trim();

    for (const width of WIDTHS) {
      it(`at ${width} px: makes a token shown once, shows the directory's first push with it, and revokes it`, async () => {
        const { context, page, watch } = await freshPage(width);
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app });
        const findings: Array<{ page: string; violations: AxeViolation[] }> = [];
        const check = checker(page, width, 'directory', findings);

        // A portal session, from a link made through the administration API and its button.
        await page.goto(await makeSetupLink(directory, 'acme'));
        await page.getByRole('button', { name: 'Start the setup' }).click();
        await page.waitForURL(`${app}/setup/portal`);
        await page.getByRole('link', { name: 'Directory sync (optional)' }).click();
        await page.waitForURL(`${app}/setup/portal/directory`);
        await page.getByRole('heading', { name: /^Directory sync/, level: 1 }).waitFor();
        expect(await page.locator('#base-url').textContent()).to.equal(`${app}/scim/v2/acme/`);
        await page.getByText('No token yet.').waitFor();
        expect(await fact(page, 'Last reached')).to.equal('not yet');
        // What earlier pushes left (the other width's): this flow's push adds one.
        const receivedBefore = Number(await fact(page, 'People received'));
        await check('no-token');

        // Made, and shown this once: its Copy button puts it on the clipboard and says so.
        await page.getByRole('button', { name: 'Make a token' }).click();
        const token = ((await page.locator('#new-token').textContent()) ?? '').trim();
        expect(token).to.match(/^gh_scim_[A-Za-z0-9_-]{43}$/);
        await page.getByText('Copy it now: it is not shown again.').waitFor();
        await page.getByRole('button', { name: 'Copy the token' }).click();
        await page.locator('#copy-status').getByText('Copied the token.').waitFor();
        expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(token);
        await check('token-made');

        // Reloaded (the page's own link, a GET): listed by its id only, never used.
        await page.getByRole('link', { name: 'reload this page' }).click();
        await page.waitForURL(`${app}/setup/portal/directory`);
        const rows = page.locator('table tbody tr');
        expect(await rows.count()).to.equal(1);
        const id = ((await rows.locator('td').first().textContent()) ?? '').trim();
        const listed = (await (await directory.api('GET', '/api/admin/organizations/acme/scim-tokens')).json()) as {
          tokens: Array<{ id: string }>;
        };
        expect(listed.tokens.map((made) => made.id)).to.deep.equal([id]);
        expect(await page.content()).not.to.include(token);
        expect(await rows.locator('td').nth(2).innerText()).to.match(/never$/);
        await check('token-listed');

        // The directory's first push with it, then a reload: the test shows it, and when.
        const pushedAt = Date.now();
        const created = await scimClient(`${app}/scim/v2/acme`, token)('POST', '/Users', {
          schemas: [USER_SCHEMA],
          userName: `portal-${width}@${DOMAIN}`,
          displayName: `Pushed at ${width} px`,
          active: true,
        });
        expect(created.status).to.equal(201);
        // The token's use is written beside the answer, not before it.
        await within(5_000, 'the step shows the push', async () => {
          await page.reload();
          return (await fact(page, 'Last reached')) !== 'not yet';
        });
        expect(await fact(page, 'People received')).to.equal(String(receivedBefore + 1));
        const reached = Date.parse((await page.locator('#directory-test time').getAttribute('datetime')) ?? '');
        // Shown to the minute: within one of the push.
        expect(Math.abs(reached - pushedAt)).to.be.below(60_000);
        expect(await rows.locator('td').nth(2).innerText()).not.to.match(/never$/);
        await check('token-used');

        // Revoked with its button: gone from the list, and refused to the directory.
        await page.getByRole('button', { name: `Revoke ${id}` }).click();
        await page.getByText(`Token ${id} is revoked`).waitFor();
        await page.getByText('No token yet.').waitFor();
        expect((await scimClient(`${app}/scim/v2/acme`, token)('GET', '/Users')).status).to.equal(401);
        await check('token-revoked');

        expect(
          findings.filter((found) => found.violations.length > 0),
          'axe-core: serious or critical violations',
        ).to.deep.equal([]);
        expect(watch.problemsOn(app), 'console errors or CSP violations').to.deep.equal([]);
        expect(watch.offHostRequests).to.deep.equal([]);
      });
    }
  });

  describe("the sample application's page of an organization's people", () => {
    /** Everyone Acme's directory holds, the portal step's pushes included. */
    let everyone: number;

    before(async () => {
      const made = await directory.newScimToken();
      const scim: ScimRequest = scimClient(made.baseUrl, made.token);
      for (const { title, department, ...person } of [...NAMED_PEOPLE, ...NUMBERED_PEOPLE]) {
        const created = await scim('POST', '/Users', {
          schemas: [USER_SCHEMA, ...(department ? [ENTERPRISE_SCHEMA] : [])],
          ...person,
          emails: [{ value: person.userName, type: 'work', primary: true }],
          ...(title ? { title } : {}),
          ...(department ? { [ENTERPRISE_SCHEMA]: { department } } : {}),
        });
        expect(created.status, person.userName).to.equal(201);
      }
      const listed = (await (await scim('GET', '/Users?count=0')).json()) as { totalResults: number };
      everyone = listed.totalResults;
      expect(everyone).to.be.above(PAGE_SIZE);
    });

    /** The table's rows as [name, status]. */
    const peopleRows = (page: Page) =>
      page
        .locator('table.people tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) => [
            row.querySelector('td:first-child')?.textContent?.trim() ?? '',
            row.querySelector('td:last-child')?.textContent?.trim() ?? '',
          ]),
        );

    /** Status tags whose word is broken over two lines (a string: the project's tsconfig has no DOM library). */
    const brokenStatuses = async (page: Page) =>
      (await page.evaluate(`Array.from(document.querySelectorAll('table.people .tag'))
        .filter((tag) => { const text = document.createRange(); text.selectNodeContents(tag); return text.getClientRects().length > 1; })
        .map((tag) => tag.textContent)`)) as string[];

    /**
     * How the table's first row is laid out: its cells side by side under the column headings,
     * or (on a phone) stacked one fact a line, each named by its own label.
     */
    const firstRowLayout = async (page: Page) =>
      (await page.evaluate(`(() => {
        const cells = Array.from(document.querySelectorAll('table.people tbody tr:first-child td'));
        const lefts = new Set(cells.map((cell) => Math.round(cell.getBoundingClientRect().left)));
        const labels = Array.from(document.querySelectorAll('table.people tbody tr:first-child .cell-label'));
        return { stacked: lefts.size === 1, labelled: labels.every((label) => label.getBoundingClientRect().width > 0) };
      })()`)) as { stacked: boolean; labelled: boolean };

    for (const width of WIDTHS) {
      it(`at ${width} px: a person of acme signs in through its connection, sees its people, searches and pages`, async () => {
        const { page, watch } = await freshPage(width);
        const findings: Array<{ page: string; violations: AxeViolation[] }> = [];
        const checkPage = checker(page, width, 'people', findings);
        const check = async (state: string) => {
          await checkPage(state);
          expect(await brokenStatuses(page), `status tags broken over two lines on ${state}`).to.deep.equal([]);
          const narrow = width < 600;
          expect(await firstRowLayout(page), `the table's layout on ${state}`).to.deep.equal({
            stacked: narrow,
            labelled: narrow,
          });
        };
        const people = `${app}/Organizations/acme/People`;

        // The login page's e-mail form, then Acme's OpenID provider.
        await page.goto(`${app}/`);
        await page.waitForURL(`${app}/Account/Login?returnUrl=%2F`);
        await page.getByLabel('Sign in with your work e-mail').fill(`ada@${DOMAIN}`);
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.waitForURL((at) => at.origin === new URL(directory.provider.issuer).origin);
        await signInAtDemoProvider(page, 'admin');
        await page.waitForURL(`${app}/`);
        await page.getByRole('link', { name: 'People at acme' }).click();
        await page.waitForURL(people);
        await page.getByRole('heading', { name: 'People at acme', level: 1 }).waitFor();

        // The first page: 50 of everyone, and the way to the next.
        expect(await page.locator('#people-count').textContent()).to.equal(`${everyone} people.`);
        const first = await peopleRows(page);
        expect(first).to.have.length(PAGE_SIZE);
        await page.getByText(`Page 1 of ${Math.ceil(everyone / PAGE_SIZE)}`).waitFor();
        await check('first-page');
        await page.getByRole('link', { name: 'Next' }).click();
        await page.waitForURL(`${people}?page=2`);
        const second = await peopleRows(page);
        expect(second).to.have.length(everyone - PAGE_SIZE);
        await check('second-page');
        // Every person once over the two pages, the deactivated one marked inactive.
        const shown = [...first, ...second];
        expect(new Set(shown.map(([name]) => name)).size).to.equal(everyone);
        for (const { displayName, active } of [...NAMED_PEOPLE, ...NUMBERED_PEOPLE]) {
          expect(shown, displayName).to.deep.include([displayName, active ? 'Active' : 'Inactive']);
        }
        await page.getByRole('link', { name: 'Previous' }).click();
        await page.waitForURL(`${people}?page=1`);

        // A part of a name, letter case ignored.
        await page.getByRole('searchbox', { name: 'Search' }).fill('dijk');
        await page.getByRole('button', { name: 'Search' }).click();
        await page.waitForURL(`${people}?q=dijk`);
        expect(await peopleRows(page)).to.deep.equal([['Edsger Dijkstra', 'Inactive']]);
        expect(await page.locator('#people-count').textContent()).to.equal('1 person matching “dijk”.');
        await check('search');
        await page.getByRole('searchbox', { name: 'Search' }).fill('TURING');
        await page.getByRole('button', { name: 'Search' }).click();
        await page.waitForURL(`${people}?q=TURING`);
        expect(await peopleRows(page)).to.deep.equal([['Alan Turing', 'Active']]);
        await check('search-title');

        expect(
          findings.filter((found) => found.violations.length > 0),
          'axe-core: serious or critical violations',
        ).to.deep.equal([]);
        expect(watch.problemsOn(app), 'console errors or CSP violations').to.deep.equal([]);
        expect(watch.offHostRequests).to.deep.equal([]);
      });
    }
  });
});
