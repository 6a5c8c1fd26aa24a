import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's `chromium` package; `.ci/run` installs it when absent. */
export const CHROMIUM = '/usr/bin/chromium';

/** Fails, never skips, when the browser is missing, and says how to get it. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)`);
}

/** Headless Chromium for the browser tests. */
export function launchChromium(): Promise<Browser> {
  requireChromium();
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}
