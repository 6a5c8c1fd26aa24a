export interface CliOptions {
  quick: boolean;
  /** Benchmarks to run; empty = all. */
  only: string[];
  out: string | undefined;
}

/** `--quick`, `--only <name>[,<name>]` (repeatable, also `--only=<name>`), `--out <file>`. */
export function parseCli(argv: readonly string[]): CliOptions {
  const options: CliOptions = { quick: false, only: [], out: undefined };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => {
      const next = inline ?? argv[++i];
      if (next === undefined || next.startsWith('--')) throw new Error(`${flag} needs a value`);
      return next;
    };
    if (flag === '--quick') options.quick = true;
    else if (flag === '--only') options.only.push(...value().split(',').filter(Boolean));
    else if (flag === '--out') options.out = value();
    else throw new Error(`unknown argument ${argv[i]} (use --quick, --only <name>, --out <file>)`);
  }
  return options;
}
