export interface CliOptions {
  quick: boolean;
  /** Benchmarks to run; empty = all. */
  only: string[];
  out: string | undefined;
}

/**
 * Walks `argv` as `--flag value`, `--flag=value` or a bare `--flag`: `onFlag` gets each flag, a
 * `value()` that takes the flag's value (inline, or the next argument) and the whole argument.
 * A flag whose value is missing fails with `error(message)`.
 */
export function eachFlag(
  argv: readonly string[],
  onFlag: (flag: string, value: () => string, argument: string) => void,
  error: (message: string) => Error = (message) => new Error(message),
): void {
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => {
      const next = inline ?? argv[++i];
      if (next === undefined || next.startsWith('--')) throw error(`${flag} needs a value`);
      return next;
    };
    onFlag(flag, value, argv[i]);
  }
}

/** `--quick`, `--only <name>[,<name>]` (repeatable, also `--only=<name>`), `--out <file>`. */
export function parseCli(argv: readonly string[]): CliOptions {
  const options: CliOptions = { quick: false, only: [], out: undefined };
  eachFlag(argv, (flag, value, argument) => {
    if (flag === '--quick') options.quick = true;
    else if (flag === '--only') options.only.push(...value().split(',').filter(Boolean));
    else if (flag === '--out') options.out = value();
    else throw new Error(`unknown argument ${argument} (use --quick, --only <name>, --out <file>)`);
  });
  return options;
}
