/** Types of server.js, for the TypeScript tests that start it. */
export interface WalkthroughApp {
  url: string;
  port: number;
  /** How many times each path was requested. */
  served(): Record<string, number>;
  close(): Promise<void>;
}

export function startWalkthroughApp(options?: { port?: number }): Promise<WalkthroughApp>;
