import { contextOfStored, type StoredContext } from './task-context.store';

const stored = (actions: string[]): StoredContext => ({
  actions,
  doneSteps: ['step:0', 'step:1'],
  outputs: { 'step:0': '{"index":0}', 'step:1': '{"index":1}' },
  findings: [],
  journal: {},
});

describe('contextOfStored', () => {
  it('decodes each part when it is first read, so reading the done steps leaves the action log as stored', () => {
    // An entry that is not JSON shows when the log is decoded: never, while only the done steps are read.
    const context = contextOfStored(stored(['{"tool":"noop_step","step":1}', 'not json']));
    expect([...context.doneSteps]).toEqual(['step:0', 'step:1']);
    expect(context.outputs.get('step:1')).toEqual({ index: 1 });
    expect(() => context.actions).toThrow(SyntaxError);
  });

  it("decodes a part once and keeps it; recent actions are the decoded log's last entries", () => {
    const context = contextOfStored(stored(['{"tool":"a","step":1}', '{"tool":"b","step":2}']));
    expect(context.actions).toBe(context.actions);
    expect(context.actions.map((action) => action.tool)).toEqual(['a', 'b']);
    expect(context.recentActions?.[1]).toBe(context.actions[1]);
  });

  it('reads the latest RECENT_ACTIONS entries of a long log as its recent actions', () => {
    const log = Array.from({ length: 140 }, (_, i) => JSON.stringify({ tool: 'noop_step', step: i + 1 }));
    const context = contextOfStored(stored(log));
    expect(context.recentActions?.map((action) => action.step)).toEqual([138, 139, 140]);
    expect(context.actions).toHaveLength(140);
  });
});
