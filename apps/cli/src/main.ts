#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { loadDoctor, runCli } from '@vigil/cli';

/**
 * The `vigil` command (docs/cli.md): a thin shell that hands the process's arguments, streams and
 * environment to libs/cli and exits with the code it answers.
 */
async function main(): Promise<void> {
  const tty = Boolean(process.stdout.isTTY);
  const code = await runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    tty,
    color: tty && !process.env.NO_COLOR,
    env: process.env,
    readStdin: () => readFileSync(0, 'utf8'),
    doctor: async (printer, options) =>
      (await loadDoctor()).runDoctor(printer, { ...options, env: process.env }),
  });
  // Lets stdout drain when it is a pipe; exitCode rather than exit() for the same reason.
  process.exitCode = code;
}

main().catch((error: unknown) => {
  process.stderr.write(`vigil: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 4;
});
