import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LUA_SOURCES } from '../lua/scripts.generated';
import { TASK_STATUSES, TERMINAL_STATUSES } from '../task-status';
import {
  ContextReply,
  ConversationClaimCode,
  MessageScriptCode,
  ScheduleScriptCode,
  ScriptCode,
} from './script-codes';
import { TASK_SCRIPT_KEYS, taskScriptDefinitions } from './task-scripts';

const LUA_DIR = join(__dirname, '..', 'lua');
const files = readdirSync(LUA_DIR).filter((name) => name.endsWith('.lua'));
const source = (name: string) => readFileSync(join(LUA_DIR, name), 'utf8');

/** The KEYS a script's header declares: `KEYS[3] …` lines and `KEYS[7..16] …` ranges. */
function declaredKeys(lua: string): number[] {
  const header = lua.slice(0, lua.indexOf(']]'));
  const declared: number[] = [];
  for (const [, from, to] of header.matchAll(/^\s*KEYS\[(\d+)(?:\.\.(\d+))?\]/gm)) {
    for (let i = Number(from); i <= Number(to ?? from); i++) declared.push(i);
  }
  return declared;
}

/** The numbered KEYS the script's body uses (computed indexes like KEYS[6 + i] are not counted). */
function usedKeys(lua: string): number[] {
  const body = lua.slice(lua.indexOf(']]') + 2);
  return [...body.matchAll(/KEYS\[(\d+)\]/g)].map((match) => Number(match[1]));
}

/** The `local <PREFIX>_NAME = value` constants of includes/codes.lua, by NAME. */
function luaTable(prefix: string): Record<string, number> {
  const codes = source('includes/codes.lua');
  return Object.fromEntries(
    [...codes.matchAll(new RegExp(`^local ${prefix}_([A-Z_]+) = (-?\\d+)$`, 'gm'))].map(([, key, value]) => [
      key,
      Number(value),
    ]),
  );
}

/** A TS enum's members as UPPER_SNAKE names (NotFound → NOT_FOUND). */
function enumTable(values: Record<string, string | number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(values)
      .filter(([, value]) => typeof value === 'number')
      .map(([key, value]) => [key.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase(), value as number]),
  );
}

describe('the task scripts', () => {
  it('has a loader entry for every .lua file and a file for every loader entry', () => {
    expect(files.map((name) => name.replace(/\.lua$/, '')).sort()).toEqual(
      Object.keys(TASK_SCRIPT_KEYS).sort(),
    );
  });

  it.each(files)('%s declares exactly the keys its loader passes, and uses no others', (name) => {
    const lua = source(name);
    const count = TASK_SCRIPT_KEYS[name.replace(/\.lua$/, '') as keyof typeof TASK_SCRIPT_KEYS];
    if (count === 'variable') {
      // As many keys as the call passes: a range to n, after the fixed keys (if any), which alone
      // are used by number.
      expect(lua.slice(0, lua.indexOf(']]'))).toMatch(/^\s*KEYS\[\d+\.\.n\]/m);
      const fixed = declaredKeys(lua);
      expect(fixed).toEqual(Array.from({ length: fixed.length }, (_, i) => i + 1));
      for (const key of usedKeys(lua)) expect(fixed).toContain(key);
      return;
    }
    const declared = declaredKeys(lua);
    expect(declared).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    for (const key of usedKeys(lua)) expect(key).toBeLessThanOrEqual(count);
  });

  it('stitches every include into the generated module, once per script', () => {
    for (const { name, lua } of taskScriptDefinitions()) {
      expect(lua).toBe(LUA_SOURCES[name]);
      expect(lua).not.toMatch(/^--- @include/m);
      for (const [, include] of source(`${name}.lua`).matchAll(/^--- @include "([a-z-]+)"/gm)) {
        expect(lua).toContain(`-- include "${include}"`);
      }
      // A fragment defined twice in one script would be a second `local` of the same name.
      expect(lua.match(/^local function fenceRefusal/gm)?.length ?? 0).toBeLessThanOrEqual(1);
      expect(lua.match(/^local CODE_APPLIED = /gm)?.length ?? 0).toBeLessThanOrEqual(1);
    }
  });

  it('fences every Worker write with the one rule of includes/fence.lua', () => {
    for (const name of [
      'heartbeat-task',
      'record-steps',
      'journal-intent',
      'transition-task',
      'reconcile-journal',
      'touch-index',
    ]) {
      const lua = LUA_SOURCES[name];
      expect({ name, fenced: lua.includes('fenceRefusal(') }).toEqual({ name, fenced: true });
      // No script compares attempts on its own.
      const body = source(`${name}.lua`).slice(source(`${name}.lua`).indexOf(']]'));
      expect(body).not.toMatch(/ARGV\[\d+\]\) [<>~]=? attempt|attempt [<>~]=? tonumber\(ARGV/);
    }
  });

  it('names the same return codes in Lua and TypeScript', () => {
    expect(luaTable('CODE')).toEqual(enumTable(ScriptCode));
    expect(luaTable('MESSAGE')).toEqual(enumTable(MessageScriptCode));
    expect(luaTable('CONTEXT')).toEqual(enumTable(ContextReply));
    expect(luaTable('CONVERSATION')).toEqual(enumTable(ConversationClaimCode));
    expect(luaTable('SCHEDULE')).toEqual(enumTable(ScheduleScriptCode));
  });
  it('places the statuses in KEYS[7..16] in the order of TASK_STATUSES and allows moves between known ones only', () => {
    const lua = source('transition-task.lua');
    const placed = [...lua.matchAll(/status == '(\w+)' then return (\d+)/g)].map(([, status, index]) => [
      Number(index),
      status,
    ]);
    expect(placed).toEqual(TASK_STATUSES.map((status, index) => [index + 1, status]));
    const table = lua.slice(lua.indexOf('local ALLOWED ='), lua.indexOf('local function allowed'));
    const moves = [...table.matchAll(/ (\w+)>(\w+)/g)].map(([, from, to]) => [from, to]);
    expect(moves.length).toBeGreaterThan(30);
    for (const [from, to] of moves) {
      expect(TASK_STATUSES).toContain(from);
      expect(TASK_STATUSES).toContain(to);
      expect(TERMINAL_STATUSES).not.toContain(from);
    }
  });
});
