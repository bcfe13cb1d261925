import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium package: the suite never downloads a browser. */
export const CHROMIUM_EXECUTABLE = '/usr/bin/chromium';

/**
 * Flags for a headless Chromium in a container: no sandbox, no GPU, nothing fetched in
 * the background. No --user-data-dir: every `browser.newContext()` is a fresh,
 * incognito-like profile, so no state leaks between the demo users.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, headless: true, args: CHROMIUM_ARGS });
}
