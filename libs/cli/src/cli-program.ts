import { Command, CommanderError } from 'commander';
import { VigilClient } from '@vigil/client';
import { cliTarget } from './cli-env';
import { adviceFor } from './error-advice';
import { EXIT } from './exit-codes';
import type { CliRuntime } from './cli-runtime';
import { Printer } from './printer';
import { addTaskCommands, type CommandContext } from './task-commands';
import { addScheduleCommands } from './schedule-commands';

/**
 * The `vigil` command line (docs/cli.md): `tasks …` over the typed client, and `doctor`. Answers
 * the exit code; an error is printed as advice (error-advice.ts) and exits 4.
 */
export async function runCli(argv: readonly string[], runtime: CliRuntime): Promise<number> {
  const printer = new Printer(runtime);
  const context: CommandContext = {
    printer,
    runtime,
    exitCode: EXIT.completed,
    connect: () => {
      const target = cliTarget(runtime.env);
      for (const warning of target.warnings) printer.warn(`warning: ${warning}`);
      return new VigilClient({ baseUrl: target.baseUrl, apiKey: target.apiKey });
    },
  };

  const program = new Command('vigil')
    .description('Drive Vigil from a terminal: create, follow and control tasks, and check a setup.')
    .exitOverride()
    .configureOutput({ writeOut: runtime.stdout, writeErr: runtime.stderr })
    .showHelpAfterError('(vigil --help lists the commands)');
  addTaskCommands(program.command('tasks').description('create, follow, read and control tasks'), context);
  addScheduleCommands(
    program.command('schedules').description('create, read, pause, resume, trigger and delete schedules'),
    context,
  );
  program
    .command('doctor')
    .description(
      'check a setup: configuration, Redis, the object store, the tool catalog and its MCP servers, model keys',
    )
    .option('--json', 'print the checks as JSON')
    .action(async (options: { json?: boolean }) => {
      if (!runtime.doctor) throw new Error('doctor is not available in this build');
      context.exitCode = await runtime.doctor(printer, { json: Boolean(options.json) });
    });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.completed : EXIT.error;
    printer.endStatus();
    const keyFromEnv = Boolean(runtime.env.VIGIL_API_KEY?.trim());
    printer.error(`vigil: ${adviceFor(error, { taskId: context.taskId, keyFromEnv })}`);
    return EXIT.error;
  }
}
