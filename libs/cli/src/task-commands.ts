import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  allPages,
  TASK_STATUSES,
  type CreateTaskBody,
  type Task,
  type TaskStatus,
  type VigilClient,
} from '@vigil/client';
import { CliUsageError } from './cli-env';
import type { CliRuntime } from './cli-runtime';
import type { Printer } from './printer';
import { actionRows, artifactRows, findingRows, messageRows, taskDetails, taskRows } from './task-format';
import { watchTask } from './watch-task';

/** What the commands share: where to print, how to reach the API, what they found. */
export interface CommandContext {
  printer: Printer;
  runtime: CliRuntime;
  connect: () => VigilClient;
  exitCode: number;
  /** The task the command is about, for a 404's advice. */
  taskId?: string;
}

interface JsonOption {
  json?: boolean;
}

function positiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new InvalidArgumentError('must be a whole number from 1');
  return number;
}

function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('must be a number above 0');
  return number;
}

/** A task body from a file (or `-`, the standard input), with the problem named when it is not one. */
function readBody(file: string, runtime: CliRuntime): CreateTaskBody {
  let text: string;
  try {
    text = file === '-' ? runtime.readStdin() : readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliUsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new CliUsageError(`${file} is not JSON: ${(error as Error).message}`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new CliUsageError(
      `${file} must hold one task body, a JSON object such as {"kind":"noop","input":{"steps":3}}`,
    );
  return body as CreateTaskBody;
}

/** `tasks …` (docs/cli.md, "Commands"). Every read takes --json: the API's JSON, unchanged. */
export function addTaskCommands(tasks: Command, context: CommandContext): void {
  const { printer, runtime } = context;
  const about = (id: string) => {
    context.taskId = id;
    return context.connect();
  };
  const print = <T>(options: JsonOption, value: T, lines: (value: T) => string[]) =>
    options.json ? printer.json(value) : printer.lines(lines(value));
  const watch = (client: VigilClient, id: string, options: JsonOption) =>
    watchTask(client, id, printer, { json: Boolean(options.json), signal: runtime.signal });

  tasks
    .command('create')
    .description('create a task from a JSON body (POST /v1/tasks)')
    .requiredOption('-f, --file <body.json>', 'the task body; - reads the standard input')
    .option('-w, --watch', 'then follow it until it ends or waits for a person (exit code by outcome)')
    .option('--idempotency-key <key>', 'the same key with the same body answers the first task')
    .option('--json', 'print JSON')
    .action(async (options: JsonOption & { file: string; watch?: boolean; idempotencyKey?: string }) => {
      const body = readBody(options.file, runtime);
      const client = context.connect();
      const task = await client.tasks.create(body, { idempotencyKey: options.idempotencyKey });
      context.taskId = task.id;
      if (!options.watch)
        return print(options, task, () => [`created ${task.id}`, `follow it: vigil tasks watch ${task.id}`]);
      if (options.json) printer.jsonLine({ created: task });
      else printer.line(`created ${task.id}`);
      context.exitCode = await watch(client, task.id!, options);
    });

  tasks
    .command('watch <id>')
    .description(
      'follow a task: progress, messages, live model text; exits 0 completed, 1 failed, 2 cancelled, 3 waiting for a person',
    )
    .option('--json', 'print each event as one JSON line, then the task')
    .action(async (id: string, options: JsonOption) => {
      context.exitCode = await watch(about(id), id, options);
    });

  tasks
    .command('ls')
    .description("list this key's tenant's tasks, newest first")
    .addOption(new Option('--status <status>', 'only tasks in this status').choices(TASK_STATUSES))
    .option('--archived', 'list archived tasks instead (finished, moved to the object store)')
    .option('--limit <n>', 'tasks per page (1 to 100)', positiveInt)
    .option('--cursor <cursor>', 'the next page, as the previous one said')
    .option('--json', 'print JSON')
    .action(
      async (
        options: JsonOption & { status?: TaskStatus; archived?: boolean; limit?: number; cursor?: string },
      ) => {
        const { json: _json, ...query } = options;
        const page = await context.connect().tasks.list(query);
        print(options, page, () => [
          ...taskRows(page.data),
          ...(page.nextCursor ? [`more: vigil tasks ls --cursor ${page.nextCursor}`] : []),
        ]);
      },
    );

  const read = (name: string, description: string, run: (id: string, options: JsonOption) => Promise<void>) =>
    tasks.command(`${name} <id>`).description(description).option('--json', 'print JSON').action(run);
  const truncated = (all: { truncated: boolean }) => (all.truncated ? ['(the first 10,000 only)'] : []);

  read('get', 'the task: status, progress, verification, result or failure', async (id, options) =>
    print(options, await about(id).tasks.get(id), taskDetails),
  );
  read('actions', 'every tool call the runtime recorded', async (id, options) => {
    const client = about(id);
    const all = await allPages((cursor) => client.tasks.actions(id, { limit: 100, cursor }));
    print(options, all, () => [...actionRows(all.data), ...truncated(all)]);
  });
  read('messages', 'the messages the user received', async (id, options) => {
    const client = about(id);
    const all = await allPages((cursor) => client.tasks.messages(id, { limit: 100, cursor }));
    print(options, all, () => [...messageRows(all.data), ...truncated(all)]);
  });
  read('findings', 'the findings the agent recorded', async (id, options) => {
    const client = about(id);
    const all = await allPages((cursor) => client.tasks.findings(id, { limit: 100, cursor }));
    print(options, all, () => [...findingRows(all.data), ...truncated(all)]);
  });
  read('artifacts', 'the images and large outputs kept in the object store', async (id, options) => {
    const list = await about(id).tasks.artifacts(id);
    print(options, list, () => artifactRows(list.data));
  });
  read('children', 'the child tasks', async (id, options) => {
    const list = await about(id).tasks.children(id);
    print(options, list, () => taskRows(list.data));
  });
  read('report', 'the report in Markdown, built by the runtime from the record', async (id, options) => {
    const markdown = await about(id).tasks.report(id);
    print(options, { markdown }, () => [markdown.replace(/\n$/, '')]);
  });

  const controlled = (options: JsonOption, task: Task) =>
    print(options, task, () => [
      `${task.id}: ${task.status}${task.statusReason ? ` (${task.statusReason})` : ''}`,
    ]);
  const control = (name: string, description: string) =>
    tasks
      .command(`${name} <id>`)
      .description(description)
      .option('--json', 'print the task afterwards as JSON');
  control('stop', 'stop a task: cancelled at once, in-flight calls aborted').action(
    async (id: string, options: JsonOption) => controlled(options, await about(id).tasks.stop(id)),
  );
  control('pause', 'pause a task, keeping everything').action(async (id: string, options: JsonOption) =>
    controlled(options, await about(id).tasks.pause(id)),
  );
  control('resume', 'resume a paused task')
    .option('--budget <usd>', 'raise its budget (USD) as it resumes', positiveNumber)
    .action(async (id: string, options: JsonOption & { budget?: number }) =>
      controlled(
        options,
        await about(id).tasks.resume(id, options.budget ? { budgetUsd: options.budget } : {}),
      ),
    );
  tasks
    .command('steer <id>')
    .description('give a running task an instruction; the agent reads it at its next model call')
    .argument('<text...>', 'the instruction')
    .option('--idempotency-key <key>', 'the same key records the instruction once')
    .option('--json', 'print the recorded instruction as JSON')
    .action(async (id: string, words: string[], options: JsonOption & { idempotencyKey?: string }) => {
      const given = await about(id).tasks.steer(
        id,
        { text: words.join(' ') },
        options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {},
      );
      if (options.json) return printer.json(given);
      printer.lines([
        `${id}: instruction ${given.id} recorded; ${given.applies === 'on_resume' ? 'it applies when the task resumes' : 'the agent reads it at its next model call'}`,
      ]);
    });
  control('answer', 'answer a task waiting for a person')
    .argument('<text...>', 'the answer')
    .addOption(
      new Option('--resolution <done|not_done>', 'for an unresolved write: did it happen?').choices([
        'done',
        'not_done',
      ]),
    )
    .action(async (id: string, words: string[], options: JsonOption & { resolution?: 'done' | 'not_done' }) =>
      controlled(
        options,
        await about(id).tasks.input(id, { text: words.join(' '), resolution: options.resolution }),
      ),
    );
}
