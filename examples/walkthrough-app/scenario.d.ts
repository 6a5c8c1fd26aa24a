/** Types of scenario.js, for the TypeScript tests that run the walkthrough. */
export const CHROMIUM: string;
/** The Worker is SIGKILLed just before this call of the plan. */
export const CRASH_AT_STEP: number;
export const DEFECT_TITLE: string;
/** Screenshots the plan takes. */
export const SCREENSHOTS: number;
export function browserArgs(options: { root: string; outputDir: string }): string[];
export function walkthroughCatalog(options: {
  root: string;
  outputDir: string;
  tenant: string;
}): Record<string, unknown>;
export function walkthroughPlan(appUrl: string): { tool: string; args: Record<string, unknown> }[];
export function walkthroughCriteria(): { check: string; expected: unknown; args?: Record<string, unknown> }[];
