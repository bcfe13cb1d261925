import type { BrowserContext, Page } from 'playwright-core';

/** Page-side script (a string: the project's tsconfig has no DOM lib). */
const REPORT_CSP_VIOLATIONS = `document.addEventListener('securitypolicyviolation', (event) => {
  console.error('CSP violation: ' + event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' at ' + event.documentURI);
});`;

export interface PageProblem {
  /** The page (or resource) the browser attributed the message to. */
  url: string;
  text: string;
}

/**
 * What the browser complained about, kept per origin so Gatehouse's pages are judged
 * apart from the demo provider's. Catches console errors (Chromium reports CSP
 * violations and failed loads there), uncaught page errors, and `securitypolicyviolation`
 * events, which a script added through the DevTools protocol hears without being subject
 * to the page's CSP.
 */
export class PageWatch {
  readonly problems: PageProblem[] = [];
  /** Requests that tried to leave loopback; they are aborted (the suite runs offline). */
  readonly offHostRequests: Array<{ url: string; fromPage: string }> = [];
  /** Main-frame navigation requests in order, one per redirect hop. */
  readonly navigations: Array<{ method: string; url: string }> = [];

  /** `allowedHosts`: the loopback addresses the journey may visit (an identity provider on 127.0.0.2 ...). */
  static async attach(
    context: BrowserContext,
    page: Page,
    allowedHosts: readonly string[] = ['127.0.0.1'],
  ): Promise<PageWatch> {
    const watch = new PageWatch();
    await context.addInitScript({ content: REPORT_CSP_VIOLATIONS });
    await context.route(
      (url) => !allowedHosts.includes(url.hostname),
      async (route) => {
        watch.offHostRequests.push({ url: route.request().url(), fromPage: route.request().frame().url() });
        await route.abort('blockedbyclient');
      },
    );
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      watch.problems.push({ url: message.location().url || page.url(), text: message.text() });
    });
    page.on('pageerror', (error) => watch.problems.push({ url: page.url(), text: `uncaught: ${error.message}` }));
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame())
        watch.navigations.push({ method: request.method(), url: request.url() });
    });
    return watch;
  }

  /** Problems attributed to a URL of `origin`. */
  problemsOn(origin: string): PageProblem[] {
    return this.problems.filter((problem) => problem.url.startsWith(`${origin}/`));
  }
}
