/** One reported figure: always with its unit and a short note on how it was measured. */
export interface BenchResult {
  value: number | string | null;
  unit: string;
  note: string;
  /** What the issue asks for, when it names a target (e.g. "= 1", ">= 1.0", "flat"). */
  target?: string;
  /** Supporting figures, each with its unit in its name or its own { value, unit }. */
  details?: Record<string, unknown>;
}

export type BenchResults = Record<string, BenchResult>;

export interface BenchOptions {
  quick: boolean;
  /** Absolute path of the build the process benchmarks run (`.dist-bench`). */
  distDir: () => Promise<string>;
  log: (message: string) => void;
}

export type Bench = (options: BenchOptions) => Promise<BenchResults>;
