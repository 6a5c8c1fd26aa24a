import { BoundKind, defineKind, defineTool, type KindServices, type TaskKind } from '@vigil/kinds';
import { subtaskStepKey, type AgentOptions } from '@vigil/tasks';
import { scriptedPlanOf } from './scripted-plan';

const services = {} as KindServices;
const note = defineTool({
  name: 'notes_add',
  taskName: 'notes.add',
  description: 'Adds a note.',
  parameters: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  effect: 'write',
  stepKey: (args) => `note:${args.title}`,
  execute: async () => null,
});
const base = {
  input: { type: 'object' },
  instructions: () => '',
  tools: [note],
  checks: {},
};
const agent: AgentOptions = {
  scripted: {
    plan: [
      [
        { tool: 'notes.add', args: { title: 'a' } },
        { tool: 'notes.add', args: { title: 7 } },
      ],
      { tool: 'start_subtask', args: { goal: 'g' } },
      { tool: 'record_finding', args: { title: 'f' } },
    ],
  },
};
const bind = (kind: TaskKind) =>
  new BoundKind<unknown>(kind, { id: 't', tenantId: 'acme', input: {} }, services);

describe('the scripted driver’s plan', () => {
  it('is the kind’s own when it offers one, whatever the request says', () => {
    const planned = defineKind({
      ...base,
      name: 'planned',
      scriptedPlan: () => [{ key: 'note:x', tool: 'notes_add', args: { title: 'x' } }],
    }) as TaskKind;
    expect(scriptedPlanOf(bind(planned), agent, [note])).toEqual([
      { key: 'note:x', tool: 'notes_add', args: { title: 'x' } },
    ]);
  });

  it('plays the request’s plan otherwise: tools as the model sees them, keyed by their step, turns kept', () => {
    const unplanned = defineKind({ ...base, name: 'unplanned' }) as TaskKind;
    expect(scriptedPlanOf(bind(unplanned), agent, [note])).toEqual([
      { key: 'note:a', tool: 'notes_add', args: { title: 'a' }, turn: 0 },
      // Arguments that name no step: the call is made as planned, keyed by its place.
      { key: 'plan:1', tool: 'notes_add', args: { title: 7 }, turn: 0 },
      { key: subtaskStepKey({ goal: 'g' }), tool: 'start_subtask', args: { goal: 'g' }, turn: 1 },
      { key: 'plan:3', tool: 'record_finding', args: { title: 'f' }, turn: 2 },
    ]);
    expect(scriptedPlanOf(bind(unplanned), {}, [note])).toEqual([]);
  });
});
