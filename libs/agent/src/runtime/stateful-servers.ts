import type { KindTool } from '@vigil/kinds';
import type { ActionRecord, TaskRecord } from '@vigil/tasks';
import type { ToolOutcome } from './tool-executor';

/** How many actions, newest first, are searched for a stateful server's last use. */
export const STATEFUL_SEARCH_LIMIT = 500;
/** A call's arguments longer than this are not offered again whole: only their `url`. */
const REOPEN_ARGS_CHARS = 500;
/** The line of a restart notice that names the call that reopens the last location. */
export const REOPEN_PREFIX = 'Reopen with: ';

/** Where a stateful server last was, as the action log says: the last call with a `url` argument. */
interface Location {
  url: string;
  /** The call that went there (the model's name of the tool) and its arguments. */
  tool: string;
  args: Record<string, unknown>;
  step?: number;
}

/** What the record says of the task's last use of one stateful server. */
interface LastUse {
  session: string;
  attempt: number;
  codeVersion?: string;
  step?: number;
  tool: string;
}

/** Why the Worker and the server the task used last may differ, as the record and the claim say. */
export interface SliceSituation {
  task: Pick<TaskRecord, 'attempt' | 'workerId' | 'retryHistory'>;
  /** This Worker's id. */
  workerId: string;
  /** This Worker's code version. */
  codeVersion: string;
}

/**
 * The task's tools whose server the catalog marks `stateful` (docs/missions.md, "Stateful tool
 * servers"): a browser whose open pages and logins live only as long as its process. Each call
 * records the server session that answered; when the session a slice finds differs from the one
 * the task last used (the Worker crashed or changed, the server restarted), the opening says the
 * server was restarted, what it held is gone, and where it last was, so the agent reopens it
 * instead of acting on pages that no longer exist. A restart between two calls of one slice is
 * said the same way, before the result of the first call in the new session.
 */
export class StatefulServers {
  /** Model tool name → its stateful server's name. */
  private readonly serverOf = new Map<string, string>();
  private readonly sessionNow = new Map<string, () => string | null>();
  private readonly lastUse = new Map<string, LastUse>();
  private readonly location = new Map<string, Location>();
  /** Per server, the session the agent knows of: calls in another one get a notice first. */
  private readonly known = new Map<string, string>();
  /** Servers the opening already told about: the first call's session is the one it meant. */
  private readonly told = new Set<string>();
  private notice = '';

  constructor(tools: readonly KindTool[]) {
    for (const tool of tools) {
      if (!tool.statefulServer) continue;
      this.serverOf.set(tool.name, tool.statefulServer.name);
      this.sessionNow.set(tool.statefulServer.name, () => tool.statefulServer!.session());
    }
  }

  /** True when the task uses a stateful server at all. */
  get any(): boolean {
    return this.serverOf.size > 0;
  }

  /** Reads each server's last use and last location from the action log, newest first. */
  async readLastUse(newestFirst: AsyncIterable<ActionRecord>): Promise<void> {
    const servers = new Set(this.serverOf.values());
    for await (const action of newestFirst) {
      const server = this.serverOf.get(action.tool);
      if (server === undefined || action.error !== undefined) continue;
      if (!this.lastUse.has(server) && action.serverSession !== undefined)
        this.lastUse.set(server, {
          session: action.serverSession,
          attempt: action.attempt,
          codeVersion: action.codeVersion,
          step: action.step,
          tool: action.tool,
        });
      if (!this.location.has(server)) {
        const found = locationOf(action.tool, action.args, action.step);
        if (found) this.location.set(server, found);
      }
      if ([...servers].every((name) => this.lastUse.has(name) && this.location.has(name))) return;
    }
  }

  /**
   * Compares each server's last recorded session with the one this process holds now and words
   * the opening's notice for those that differ (empty when none does). Called once per slice.
   */
  open(situation: SliceSituation): string {
    const parts: string[] = [];
    for (const [server, last] of this.lastUse) {
      const now = this.sessionNow.get(server)?.() ?? null;
      if (now === last.session) {
        this.known.set(server, now);
        continue;
      }
      this.told.add(server);
      parts.push(this.restartText(server, why(last, situation), 'the opening'));
    }
    this.notice = parts.length ? `## Tool servers restarted\n${parts.join('\n\n')}` : '';
    return this.notice;
  }

  /** The notice `open` worded (empty when none). */
  get openingNotice(): string {
    return this.notice;
  }

  /** The outcome as the model reads it: after a restart since the agent's last call, the notice first. */
  withNotice(tool: string, args: Record<string, unknown>, outcome: ToolOutcome): ToolOutcome {
    const notice = this.afterCall(tool, args, outcome);
    if (!notice) return outcome;
    const shown = outcome.shown ?? JSON.stringify(outcome.result ?? { ok: true });
    return { ...outcome, shown: `${notice}\n\n${shown}` };
  }

  /**
   * Keeps track of a call to a stateful server; when it ran in another session than the agent
   * knew of, the notice to put before its result (else undefined).
   */
  afterCall(tool: string, args: Record<string, unknown>, outcome: ToolOutcome): string | undefined {
    const server = this.serverOf.get(tool);
    if (server === undefined || !outcome.ok) return undefined;
    const session = outcome.serverSession;
    let notice: string | undefined;
    if (session !== undefined) {
      const known = this.known.get(server);
      if (known !== undefined && known !== session && !this.told.has(server))
        notice = this.restartText(server, 'the server process restarted', 'this call');
      this.told.delete(server);
      this.known.set(server, session);
    }
    const found = locationOf(tool, args);
    if (found) this.location.set(server, found);
    return notice;
  }

  private restartText(server: string, reason: string, when: 'the opening' | 'this call'): string {
    const where = this.location.get(server);
    const lines = [
      `The "${server}" tool server was restarted ${when === 'this call' ? 'before this call' : 'since this task last used it'} (${reason}): what it held — open pages, logins, form input, element references from earlier snapshots — is gone.`,
    ];
    if (where) {
      lines.push(
        `Its last known location: ${where.url}${where.step !== undefined ? ` (step #${where.step}, ${where.tool})` : ''}. Open it again before going on, and read the page afresh.`,
        `${REOPEN_PREFIX}${where.tool} ${JSON.stringify(reopenArgs(where))}`,
      );
    } else {
      lines.push('Establish what you need again before going on.');
    }
    return lines.join('\n');
  }
}

/** Why the session differs, from the record: an attempt ended, the task moved, or the server restarted. */
function why(last: LastUse, { task, workerId, codeVersion }: SliceSituation): string {
  if (last.attempt < task.attempt) {
    const ended = task.retryHistory.find((entry) => entry.attempt === last.attempt);
    return `attempt ${last.attempt} ended${ended ? `: ${ended.reason}` : ''}, and this is attempt ${task.attempt}`;
  }
  if (task.workerId && task.workerId !== workerId) {
    const deployed = last.codeVersion !== undefined && last.codeVersion !== codeVersion;
    return `the task moved to another Worker${deployed ? `, running code ${codeVersion} (a deploy)` : ''}`;
  }
  return 'the server process restarted';
}

function locationOf(
  tool: string,
  args: Record<string, unknown> | undefined,
  step?: number,
): Location | undefined {
  const url = args?.url;
  if (typeof url !== 'string' || url === '') return undefined;
  return { url, tool, args: args!, ...(step !== undefined ? { step } : {}) };
}

function reopenArgs(where: Location): Record<string, unknown> {
  return JSON.stringify(where.args).length <= REOPEN_ARGS_CHARS ? where.args : { url: where.url };
}

/**
 * The calls a restart notice names to reopen each server's last location (`Reopen with: <tool>
 * <json args>` lines): what an agent that follows the notice calls first.
 */
export function reopenCalls(text: string): { name: string; args: Record<string, unknown> }[] {
  const calls: { name: string; args: Record<string, unknown> }[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(REOPEN_PREFIX)) continue;
    const rest = line.slice(REOPEN_PREFIX.length);
    const space = rest.indexOf(' ');
    if (space < 0) continue;
    try {
      const args = JSON.parse(rest.slice(space + 1)) as unknown;
      if (args && typeof args === 'object' && !Array.isArray(args))
        calls.push({ name: rest.slice(0, space), args: args as Record<string, unknown> });
    } catch {
      // Not a reopen line this parser wrote: nothing to call.
      continue;
    }
  }
  return calls;
}
