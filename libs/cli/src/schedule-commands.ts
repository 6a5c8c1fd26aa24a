import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { allPages, type CreateScheduleBody, type Schedule, type ScheduleRun } from '@vigil/client';
import { CliUsageError } from './cli-env';
import type { CommandContext } from './task-commands';
import { oneLine, table, when } from './table';

interface JsonOption {
  json?: boolean;
}

export function scheduleRows(schedules: readonly Schedule[]): string[] {
  if (schedules.length === 0) return ['no schedules'];
  return table([
    ['ID', 'STATE', 'CRON', 'TIMEZONE', 'OVERLAP', 'NEXT', 'LAST', 'NAME'],
    ...schedules.map((schedule) => [
      schedule.id ?? '',
      schedule.state ?? '',
      schedule.cron ?? '',
      schedule.timezone ?? '',
      schedule.overlap ?? '',
      when(schedule.nextFireAt),
      schedule.lastOutcome ?? '',
      oneLine(schedule.name ?? '', 40),
    ]),
  ]);
}

export function runRows(runs: readonly ScheduleRun[]): string[] {
  if (runs.length === 0) return ['no runs yet'];
  return table([
    ['FIRE TIME', 'TRIGGER', 'OUTCOME', 'TASK', 'WHY'],
    ...runs.map((run) => [
      when(run.fireTime),
      run.trigger ?? '',
      run.outcome ?? '',
      run.taskId ?? '',
      oneLine(run.reason ?? (run.previousTaskId ? `previous ${run.previousTaskId}` : ''), 80),
    ]),
  ]);
}

function scheduleDetails(schedule: Schedule): string[] {
  return [
    `${schedule.id}  ${schedule.name}`,
    `state:     ${schedule.state}`,
    `cron:      ${schedule.cron} (${schedule.timezone})`,
    `overlap:   ${schedule.overlap}, catch up ${schedule.catchUpMs} ms`,
    `next fire: ${when(schedule.nextFireAt) || 'none (paused)'}`,
    `last fire: ${when(schedule.lastFireAt) || 'none yet'}${schedule.lastOutcome ? ` (${schedule.lastOutcome})` : ''}`,
    ...(schedule.lastTaskId ? [`last task: ${schedule.lastTaskId}`] : []),
    `task:      ${oneLine(JSON.stringify(schedule.task), 100)}`,
  ];
}

function runLine(run: ScheduleRun): string[] {
  const about = run.taskId ? ` task ${run.taskId}` : run.reason ? `: ${run.reason}` : '';
  return [`${run.outcome}${about}`];
}

/** A schedule body from a file (or `-`, the standard input). */
function readScheduleBody(file: string, readStdin: () => string): CreateScheduleBody {
  let text: string;
  try {
    text = file === '-' ? readStdin() : readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliUsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === 'object' && !Array.isArray(body)) return body as CreateScheduleBody;
  } catch (error) {
    throw new CliUsageError(`${file} is not JSON: ${(error as Error).message}`);
  }
  throw new CliUsageError(
    `${file} must hold one schedule body: {"name", "cron", "timezone", "task": {…}, "overlap"}`,
  );
}

/** `schedules …` (docs/cli.md, "Commands"): every read takes --json, the API's JSON unchanged. */
export function addScheduleCommands(schedules: Command, context: CommandContext): void {
  const { printer, runtime } = context;
  const print = <T>(options: JsonOption, value: T, lines: (value: T) => string[]) =>
    options.json ? printer.json(value) : printer.lines(lines(value));
  const client = () => context.connect();

  schedules
    .command('create')
    .description('create a schedule from a JSON body (POST /v1/schedules)')
    .requiredOption('-f, --file <body.json>', 'the schedule body; - reads the standard input')
    .option('--json', 'print JSON')
    .action(async (options: JsonOption & { file: string }) => {
      const schedule = await client().schedules.create(
        readScheduleBody(options.file, () => runtime.readStdin()),
      );
      print(options, schedule, () => [`created ${schedule.id}, next fire ${when(schedule.nextFireAt)}`]);
    });
  schedules
    .command('list')
    .description("this key's tenant's schedules, newest first")
    .option('--json', 'print JSON')
    .action(async (options: JsonOption) => {
      const connected = client();
      const all = await allPages((cursor) => connected.schedules.list({ limit: 100, cursor }));
      print(options, all, () => scheduleRows(all.data));
    });
  const one = (name: string, description: string) =>
    schedules.command(`${name} <id>`).description(description).option('--json', 'print JSON');
  one('show', 'one schedule: cron, time zone, next and last fire').action(
    async (id: string, options: JsonOption) =>
      print(options, await client().schedules.get(id), scheduleDetails),
  );
  one('runs', 'what each fire did: the task it created, or why none').action(
    async (id: string, options: JsonOption) => {
      const connected = client();
      const all = await allPages((cursor) => connected.schedules.runs(id, { limit: 100, cursor }));
      print(options, all, () => runRows(all.data));
    },
  );
  one('pause', 'pause a schedule: no fires until resumed').action(async (id: string, options: JsonOption) =>
    print(options, await client().schedules.pause(id), (schedule) => [`${schedule.id}: ${schedule.state}`]),
  );
  one('resume', 'resume a paused schedule').action(async (id: string, options: JsonOption) =>
    print(options, await client().schedules.resume(id), (schedule) => [
      `${schedule.id}: ${schedule.state}, next fire ${when(schedule.nextFireAt)}`,
    ]),
  );
  one('trigger', 'fire a schedule now, under its overlap policy and the create limits').action(
    async (id: string, options: JsonOption) => print(options, await client().schedules.trigger(id), runLine),
  );
  one('delete', 'delete a schedule and its runs (its tasks stay)').action(
    async (id: string, options: JsonOption) => {
      await client().schedules.delete(id);
      print(options, { deleted: id }, () => [`deleted ${id}`]);
    },
  );
}
