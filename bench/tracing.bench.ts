import type { AppProcess } from '@vigil/testing';
import { OtlpReceiver } from '@vigil/testing';
import { BenchContext } from './lib/context';
import { startApp } from './lib/processes';
import type { Bench, BenchResults } from './lib/result';
import { median, round } from './lib/stats';
import { TASKS, vigilRun, type Run } from './lib/throughput-runs';

/**
 * The batch processor's export delay for the traced Worker: batches of 512 spans go out as they
 * fill at these rates, so the delay only decides how long the tail of a run waits to be counted.
 */
const EXPORT_DELAY_MS = 1_000;

/**
 * Issue 24: what traces cost a Worker (docs/observability.md, "What tracing costs"). Two worker
 * processes from the same build, each on its own key prefix: one with no OTLP endpoint (the
 * no-op: no SDK loaded), one exporting every slice, model call and tool call (http/protobuf,
 * the SDK's default batch processor) to an OTLP receiver in this process. Runs of TASKS
 * scripted noop tasks alternate between them, paired; the figures are medians of the pairs.
 */
export const runTracingBench: Bench = async ({ quick, distDir, log }) => {
  const dist = await distDir();
  const steps = quick ? 28 : 140;
  const pairs = quick ? 2 : 4;
  const receiver = new OtlpReceiver({ keepSpans: false });
  const off = new BenchContext('tracing-off');
  const on = new BenchContext('tracing-on');
  const workers: AppProcess[] = [];
  try {
    await receiver.listen();
    const concurrency = { WORKER_CONCURRENCY: String(TASKS) };
    const [offWorker, onWorker] = await Promise.all([
      startApp(dist, 'worker', off.env(concurrency)),
      startApp(
        dist,
        'worker',
        on.env({
          ...concurrency,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_BSP_SCHEDULE_DELAY: String(EXPORT_DELAY_MS),
        }),
      ),
    ]);
    workers.push(offWorker, onWorker);
    // Untimed warm-up of both: JIT and connections, so a short run compares steady states.
    await vigilRun(off, offWorker, -1, 14, []);
    await vigilRun(on, onWorker, -1, 14, []);
    log('tracing: warmed up');

    const rates = { off: [] as number[], on: [] as number[] };
    const cpu = { off: [] as number[], on: [] as number[] };
    const ratios: number[] = [];
    let spansPerStep = 0;
    for (let pair = 0; pair < pairs; pair++) {
      const order = pair % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      const runs: Partial<Record<'off' | 'on', Run>> = {};
      for (const which of order) {
        const spansBefore = receiver.count;
        const run = await vigilRun(
          which === 'off' ? off : on,
          which === 'off' ? offWorker : onWorker,
          pair,
          steps,
          [],
        );
        runs[which] = run;
        rates[which].push((run.units / run.ms) * 1000);
        cpu[which].push(run.processCpuMs / run.units);
        if (which === 'on') {
          await settled(receiver);
          spansPerStep = (receiver.count - spansBefore) / run.units;
        }
        log(`tracing: ${which} ${run.units} steps in ${run.ms} ms`);
      }
      ratios.push(runs.on!.ms > 0 ? runs.off!.ms / runs.on!.ms : 0);
    }
    const offRate = median(rates.off);
    const onRate = median(rates.on);
    const results: BenchResults = {
      'tracing.on_vs_off_steps_ratio': {
        value: round(median(ratios)),
        unit: 'ratio (steps/s traced ÷ steps/s untraced)',
        note:
          `${TASKS} noop tasks × ${steps} steps (scripted model, stepMs 0) through one worker process with ` +
          `OTEL_EXPORTER_OTLP_ENDPOINT set (http/protobuf to a receiver in the bench process, OTEL_BSP_SCHEDULE_DELAY ${EXPORT_DELAY_MS}) and one without, ` +
          `${pairs} paired runs in alternating order after a warm-up, median of the per-pair ratios.`,
        details: {
          untracedStepsPerSec: round(offRate),
          tracedStepsPerSec: round(onRate),
          spansExportedPerStep: round(spansPerStep),
        },
      },
      'tracing.cost_per_step': {
        value: round(median(cpu.on) - median(cpu.off), 4),
        unit: 'worker CPU ms per step (traced − untraced)',
        note:
          "The worker process's CPU time per recorded step with traces exported minus without, medians over the " +
          'same runs; wall time per step is in the details.',
        details: {
          untracedCpuMsPerStep: round(median(cpu.off), 4),
          tracedCpuMsPerStep: round(median(cpu.on), 4),
          wallMicrosecondsPerStepAdded: round(1e6 / onRate - 1e6 / offRate, 1),
        },
      },
    };
    return results;
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await Promise.all([off.close(), on.close(), receiver.close()]);
  }
};

/** The batch processor exports within OTEL_BSP_SCHEDULE_DELAY: wait until nothing more arrives. */
async function settled(receiver: OtlpReceiver): Promise<void> {
  const deadline = Date.now() + 12_000;
  let last = -1;
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    if (receiver.count !== last) [last, quietSince] = [receiver.count, Date.now()];
    else if (Date.now() - quietSince > EXPORT_DELAY_MS + 500) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
