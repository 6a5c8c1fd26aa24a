import { ModelProviders, type GenerateRequest, type ModelProvider, type SliceRunner } from '@vigil/agent';
import { failedText } from '@vigil/notify';
import type { ActionRecord, ScriptedTurn, StructuredFailure } from '@vigil/tasks';
import { RedisTestContext, SliceRunnerHarness } from '@vigil/testing';
import { FakeCatalog } from '../../support/fake-catalog';

const LEASE = () => ({ owner: 'watcher-test', expiresAt: Date.now() + 60_000 });

/**
 * Loops are stalls (docs/ARCHITECTURE.md, "Stalls, diagnosed"): a scripted mission that repeats one
 * call, or keeps calling its model without a new unit or finding, ends its attempt as `looping`
 * within the limit, across slices that alternate between two Workers (so every slice counts on
 * from the action log), is retried on the policy's next model with the loop in its retry context,
 * and fails with a report that names the loop.
 */
describe('loops on the runtime', () => {
  const ctx = new RedisTestContext('loops', {
    SLICE_MAX_STEPS: '3',
    LOOP_REPEAT_LIMIT: '5',
    LOOP_IDLE_CALLS: '6',
    GLOBAL_SPEND_LIMIT_USD: '',
    HEARTBEAT_INTERVAL_MS: '30000',
  });
  const harness = new SliceRunnerHarness(ctx);
  const { tasks, sections } = harness;
  afterAll(() => ctx.close());

  /** What each model call was shown last (the newest result), and each slice's opening, by task. */
  const lastShown: string[] = [];
  const openings: string[] = [];

  /** The scripted agent, with each request's newest message and each slice's opening noted first. */
  class NotingProviders extends ModelProviders {
    override create(model: string, run: Parameters<ModelProviders['create']>[1]): ModelProvider {
      const inner = super.create(model, run);
      let calls = 0;
      const generate = (request: GenerateRequest) => {
        const messages = request.messages;
        if (calls++ === 0) openings.push(`${request.system}\n${String(messages[0]?.content)}`);
        lastShown.push(JSON.stringify(messages.at(-1)));
        return inner.generate(request);
      };
      return Object.assign(Object.create(inner) as ModelProvider, { generate });
    }
  }

  const catalog = new FakeCatalog();
  const kinds = harness.kinds(catalog.gateway);
  const providers = new NotingProviders(sections.models, sections.clocks);
  const workers = ['worker-a', 'worker-b'].map((workerId) =>
    harness.runner(catalog.gateway, { kinds, workerId, providers }),
  );
  const create = harness.createUseCase(kinds);
  const retries = harness.retryPublisher(kinds);

  const mission = (plan: ScriptedTurn[]) =>
    create.execute('acme', {
      kind: 'mission',
      input: { goal: 'Keep an eye on the notes', tools: ['notes.list_notes'] },
      exitCriteria: [
        {
          check: 'tool_result',
          args: { tool: 'notes.list_notes', arguments: {}, pointer: '/structuredContent/count' },
          expected: 1,
        },
      ],
      agent: { policy: ['gemini', 'opus'], scripted: { plan } },
    });

  /**
   * The attempt's slices, alternating between the Workers given (each slice reads the counts back
   * from the action log) or on one (which holds them), until one does not hand on.
   */
  async function runAttempt(taskId: string, on: SliceRunner[] = workers): Promise<string[]> {
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const task = (await tasks.get(taskId))!;
      const runner = on[i % on.length];
      const job = {
        taskId,
        attempt: task.attempt,
        slice: task.sliceCount + 1,
        reason: 'next_slice' as const,
      };
      outcomes.push(await runner.run(job));
      if (outcomes.at(-1) !== 'next_slice') break;
    }
    return outcomes;
  }

  const actionsOf = async (taskId: string): Promise<ActionRecord[]> =>
    (await ctx.redis.lrange(ctx.keys.actions(taskId), 0, -1)).map((raw) => JSON.parse(raw) as ActionRecord);

  it('ends each attempt that repeats one call as looping at LOOP_REPEAT_LIMIT, warned once, retried, then fails naming the loop', async () => {
    const repeated = { tool: 'notes.list_notes', args: { folder: 'inbox' } };
    const { task } = await mission([
      ...Array.from({ length: 8 }, () => repeated),
      { tool: 'finish_task', args: { summary: 'x' } },
    ]);
    const detail =
      'notes__list_notes was called 5 times with the same arguments {"folder":"inbox"} (LOOP_REPEAT_LIMIT 5)';

    for (const attempt of [1, 2, 3]) {
      lastShown.length = 0;
      openings.length = 0;
      // Five calls over two slices of three steps: on two Workers, then on one, then on two.
      expect(await runAttempt(task.id, attempt === 2 ? [workers[0]] : workers)).toEqual([
        'next_slice',
        'failed_attempt',
      ]);
      const ended = (await tasks.get(task.id))!;
      expect(ended.status).toBe('retrying');
      expect(ended.retryHistory.at(-1)).toMatchObject({ attempt, reason: 'looping', detail });
      const calls = (await actionsOf(task.id)).filter((action) => action.attempt === attempt);
      expect(calls).toHaveLength(5);
      // The warning once, with the fourth call's result, read by the fifth call.
      const warned = lastShown.filter((shown) => shown.includes('Vigil: you have called notes__list_notes'));
      expect(warned).toHaveLength(1);
      expect(lastShown.indexOf(warned[0])).toBe(4);
      expect(warned[0]).toContain('4 times in this attempt');
      if (attempt > 1) expect(openings[0]).toContain(`The previous attempt ended with: looping (${detail})`);
      if (attempt < 3) {
        expect(await retries.publish(ended, LEASE())).toBe('published');
        const next = (await tasks.get(task.id))!;
        expect(next).toMatchObject({ status: 'queued', attempt: attempt + 1, retryCount: attempt });
        expect(next.retryContext).toMatchObject({ reason: 'looping', detail });
      }
    }

    // The policy is spent: an honest failure that names the loop.
    expect(await retries.publish((await tasks.get(task.id))!, LEASE())).toBe('failed');
    const failed = (await tasks.get(task.id))!;
    expect(failed.status).toBe('failed');
    expect(failed.retryHistory.map((entry) => [entry.model, entry.reason])).toEqual([
      ['opus', 'looping'],
      ['gemini', 'looping'],
      ['opus', 'looping'],
    ]);
    const failure = failed.failure as StructuredFailure;
    expect(failure.reason).toBe('policy_exhausted');
    expect(failure.detail).toBe(
      `all 2 retries of the policy failed; the last attempt ended looping: ${detail}`,
    );
    expect(failedText(failed)).toContain(
      'every retry its retry policy allows failed, the last one because the agent kept repeating itself without making progress',
    );
    const made = (await actionsOf(task.id)).filter((action) => action.tool === 'notes__list_notes');
    expect(made).toHaveLength(15);
  });

  it('is no loop when one tool is called with different arguments, though it answers the same every time', async () => {
    const pages = Array.from({ length: 8 }, (_, page) => ({ tool: 'notes.list_notes', args: { page } }));
    const { task } = await mission([...pages, { tool: 'finish_task', args: { summary: 'read every page' } }]);
    expect((await runAttempt(task.id)).at(-1)).toBe('verifying');
    const results = (await actionsOf(task.id)).filter((action) => action.tool === 'notes__list_notes');
    expect(results).toHaveLength(8);
    expect(new Set(results.map((action) => JSON.stringify(action.result))).size).toBe(1);
    expect((await tasks.get(task.id))!.retryHistory).toEqual([]);
  });

  it('ends the attempt as looping after LOOP_IDLE_CALLS model calls that complete nothing new, warned once', async () => {
    lastShown.length = 0;
    const read = (page: number) => ({ tool: 'notes.list_notes', args: { page } });
    // Pages 10 to 12 are new units once; read again, they complete nothing: idle calls 1 to 6, no
    // call made more than three times.
    const { task } = await mission([10, 11, 12, 10, 11, 12, 10, 11, 12, 10].map(read));
    expect(await runAttempt(task.id)).toEqual(['next_slice', 'next_slice', 'next_slice', 'failed_attempt']);
    expect((await tasks.get(task.id))!.retryHistory[0]).toMatchObject({
      reason: 'looping',
      detail: '6 model calls in a row completed no new step and recorded no finding (LOOP_IDLE_CALLS 6)',
    });
    const actions = await actionsOf(task.id);
    expect(actions.map((action) => action.idleCalls ?? 0)).toEqual([0, 0, 0, 1, 2, 3, 4, 5, 6]);
    const warned = lastShown.filter((shown) =>
      shown.includes('completed no new step and recorded no finding'),
    );
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('your last 5 model calls');
  });
});
