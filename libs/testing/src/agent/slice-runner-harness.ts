import {
  ActiveSlices,
  CallWatchdog,
  GlobalSpendGate,
  LoopLag,
  ModelProviders,
  OutputClaimCheck,
  SliceContextCache,
  SliceRunner,
  SliceServices,
  TenantSlotGate,
  ToolExecutor,
  type KindVersionGate,
} from '@vigil/agent';
import { sectionsOf, type ConfigSections, type ToolCatalog, type VigilConfig } from '@vigil/config';
import { CreateTaskUseCase, TenantSlotQueue } from '@vigil/control';
import type { KindBinder } from '@vigil/kinds';
import type { ObjectStore } from '@vigil/object-store';
import { SliceQueue, WakeQueue, type JobRetention } from '@vigil/queue';
import { ExitCheckRunner, FailureReporter, RetryPublisher } from '@vigil/supervisor';
import {
  ArchivedTasks,
  ChildTaskRepository,
  ControlSignals,
  redisTaskLifecycle,
  SpendLedger,
  StepRecorder,
  TaskContextStore,
  TaskRepository,
  TenantSlots,
  WriteJournal,
  type TaskLifecycle,
} from '@vigil/tasks';
import type { Tracing } from '@vigil/telemetry';
import type { ToolGateway } from '@vigil/tools';
import { builtInKindBinder } from '../kinds/kind-binder';
import type { RedisTestContext } from '../redis-test-context';

/** What a test may change in a runner of the harness. */
export interface RunnerOptions {
  /** The held-context cache, for a test that looks at what the runner holds between slices. */
  held?: SliceContextCache;
  workerId?: string;
  kinds?: KindBinder;
  /** The test's own model providers (e.g. ones that note what each slice was given). */
  providers?: ModelProviders;
  /** Claim-check tool outputs over MAX_INLINE_OUTPUT_BYTES into this object store. */
  outputs?: ObjectStore;
  /** Where the runner's spans go (memoryTracing); none when absent. */
  tracing?: Tracing;
  /** The pick-up check of kind versions (docs/kinds.md, "Versions"); without it every version runs. */
  kindVersions?: KindVersionGate;
  /** Tenants of a catalog whose `maxRunning` the runner holds to (docs/operations.md, "Tenant limits"). */
  tenants?: ToolCatalog['tenants'];
  /**
   * Runs a task's next slice at once when no slice job waits on its shard, as the Worker does
   * (docs/ARCHITECTURE.md, "Named transitions"); without it every slice hands on through the queue.
   */
  continueInPlace?: boolean;
  /** WORKER_CONCURRENCY as this runner's Worker has it (else the context's). */
  workerConcurrency?: number;
}

/**
 * The Worker's slice runner in the test's process, put together as the Worker's modules put it
 * together, on the test's Redis with real slice and wake queues (one of each per shard), and the
 * create use case that publishes to them (finished jobs kept as `retention` says, else as in
 * production). No model key is set, so every task runs its scripted agent unless the test brings
 * its own providers; the tools are the test's gateway. Its queues close with `ctx`.
 */
/** A catalog of only these tenants' entries (their limits), for the tenant slot rules. */
function catalogOf(tenants: ToolCatalog['tenants']): ToolCatalog {
  return { path: 'tools.json', mcpServers: {}, httpTools: {}, tenants, variables: [] };
}

export class SliceRunnerHarness {
  readonly config: VigilConfig;
  readonly sections: ConfigSections;
  readonly tasks: TaskRepository;
  readonly contexts: TaskContextStore;
  readonly journal: WriteJournal;
  readonly children: ChildTaskRepository;
  readonly slices: SliceQueue;
  readonly lifecycle: TaskLifecycle;

  constructor(
    readonly ctx: RedisTestContext,
    options: { retention?: JobRetention } = {},
  ) {
    this.config = { ...ctx.config, anthropicApiKey: undefined, geminiApiKey: undefined };
    this.sections = sectionsOf(this.config);
    this.tasks = new TaskRepository(ctx.redis, ctx.keys, this.config);
    this.contexts = new TaskContextStore(ctx.redis, ctx.keys);
    this.journal = new WriteJournal(ctx.redis, ctx.keys);
    this.children = new ChildTaskRepository(ctx.redis, ctx.keys, this.config);
    const shards = ctx.keys.allShards();
    this.slices = new SliceQueue(
      shards.map((shard) => ctx.sliceQueue(shard)),
      ctx.keys,
      options.retention,
    );
    this.lifecycle = redisTaskLifecycle(ctx.redis, ctx.keys, this.config, {
      slices: this.slices,
      wakeups: new WakeQueue(
        shards.map((shard) => ctx.wakeQueue(shard)),
        ctx.keys,
        options.retention,
      ),
    });
  }

  /**
   * Task creation as POST /v1/tasks runs it, publishing first slices to the real queues; with no
   * object store, a replayed key never finds an archived task.
   */
  createUseCase(kinds: KindBinder, tenants?: ToolCatalog['tenants']): CreateTaskUseCase {
    return new CreateTaskUseCase(
      this.tasks,
      kinds,
      this.slices,
      this.config,
      this.children,
      this.lifecycle,
      new ArchivedTasks(),
      undefined,
      tenants &&
        new TenantSlotQueue(
          new TenantSlots(this.ctx.redis, this.ctx.keys),
          { toolCatalog: catalogOf(tenants) },
          this.config,
        ),
    );
  }

  /**
   * The Watcher's retry publisher over `kinds` (its exit checks, its failure reports), for a test
   * that takes a failed attempt to its retry or its end by hand.
   */
  retryPublisher(kinds: KindBinder, tracing?: Tracing): RetryPublisher {
    const { contexts, sections } = this;
    const reports = new FailureReporter(contexts, new ExitCheckRunner(kinds, contexts));
    return new RetryPublisher(
      this.lifecycle,
      contexts,
      kinds,
      this.journal,
      reports,
      sections.limits,
      sections.models,
      tracing,
    );
  }

  /** The built-in kinds, their tools calling `tools`. */
  kinds(tools: ToolGateway): KindBinder {
    return builtInKindBinder(this.config, tools);
  }

  /** A runner of the built-in kinds (or `options.kinds`) over `tools`. */
  runner(tools: ToolGateway, options: RunnerOptions = {}): SliceRunner {
    const { ctx, config } = this;
    const ledger = new SpendLedger(ctx.redis, ctx.keys);
    return new SliceRunner(
      this.tasks,
      this.lifecycle,
      this.contexts,
      options.held ?? new SliceContextCache(config),
      options.kinds ?? this.kinds(tools),
      new ActiveSlices(new ControlSignals(ctx.redis, ctx.keys), config),
      new SliceServices(
        new StepRecorder(ctx.redis, ctx.keys, config),
        new ToolExecutor(this.journal),
        options.providers ?? new ModelProviders(this.sections.models, this.sections.clocks),
        new GlobalSpendGate(ledger, config),
        ledger,
        new CallWatchdog(config),
        new LoopLag(),
        { ...config, workerConcurrency: options.workerConcurrency ?? config.workerConcurrency },
        options.workerId ?? 'worker-under-test',
        undefined,
        undefined,
        undefined,
        options.outputs && new OutputClaimCheck(options.outputs, this.sections.storage),
        undefined,
        options.tracing,
        undefined,
        options.kindVersions,
        options.tenants && this.tenantSlotGate(options.tenants),
        options.continueInPlace ? this.slices : undefined,
      ),
    );
  }

  private tenantSlotGate(tenants: ToolCatalog['tenants']): TenantSlotGate {
    const { ctx, config } = this;
    return new TenantSlotGate(
      new TenantSlots(ctx.redis, ctx.keys),
      this.lifecycle,
      this.slices,
      { toolCatalog: catalogOf(tenants) },
      config,
      config,
    );
  }

  /**
   * Runs the slices of the task's current attempt, each numbered after the last one recorded, until
   * one does not hand on to a next slice (at most `max`); their outcomes in order.
   */
  async runSlices(runner: SliceRunner, taskId: string, max = 30): Promise<string[]> {
    const outcomes: string[] = [];
    for (let i = 0; i < max; i++) {
      const task = await this.tasks.get(taskId);
      if (!task) throw new Error(`task ${taskId} is not in Redis`);
      const outcome = await runner.run({
        taskId,
        attempt: task.attempt,
        slice: task.sliceCount + 1,
        reason: 'next_slice',
      });
      outcomes.push(outcome);
      if (outcome !== 'next_slice') break;
    }
    return outcomes;
  }
}
