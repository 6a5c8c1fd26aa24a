import { Inject, Injectable, Optional } from '@nestjs/common';
import { ChildTaskRepository } from '../children/child-task.repository';
import { ControlSignals } from '../control-signals';
import { StepRecorder } from '../history/step-recorder';
import {
  LifecycleDeps,
  SLICE_PUBLISHER,
  type SliceContinuations,
  type SlicePublisher,
  WATCHER_WAKEUPS,
  type WatcherWakeups,
} from './ports';
import { PeopleMoves } from './people-moves';
import { TRANSITION_STORE, type TransitionStore } from './transition-command';
import { WatcherMoves } from './watcher-moves';
import { WorkerMoves } from './worker-moves';
import { KindVersionMoves } from './kind-version-moves';
import { PlaceReleasingStore, type RunningPlaces } from './place-release';
import { TASK_SETTINGS, type TaskSettings } from '../task-settings';
import { slotLease, TenantSlots } from '../tenants/tenant-slots';

/**
 * Every way a task's status changes, one named move each (docs/ARCHITECTURE.md, "The task
 * lifecycle"): a typed payload in, one call of transition-task.lua with its operation and typed
 * event, then the move's own follow-ups (a control signal, a Watcher wake-up, the slices it made
 * due). The moves are grouped by who makes them: the Worker, the Watcher, people. A move out of
 * queued or running gives the task's running place back (PlaceReleasingStore).
 */
@Injectable()
export class TaskLifecycle {
  private readonly worker: WorkerMoves;
  private readonly watcher: WatcherMoves;
  private readonly people: PeopleMoves;
  private readonly versions: KindVersionMoves;

  constructor(
    @Inject(TRANSITION_STORE) store: TransitionStore,
    @Inject(SLICE_PUBLISHER) slices: SlicePublisher,
    @Inject(WATCHER_WAKEUPS) wakeups: WatcherWakeups,
    @Inject(ControlSignals) signals: LifecycleDeps['signals'],
    @Inject(ChildTaskRepository) children: LifecycleDeps['children'],
    @Optional() @Inject(TenantSlots) places?: RunningPlaces,
    @Optional() @Inject(TASK_SETTINGS) settings?: Pick<TaskSettings, 'staleAfterMs' | 'tenantSlotRetryMs'>,
    @Optional() @Inject(StepRecorder) continuations?: SliceContinuations,
  ) {
    if (places && settings)
      store = new PlaceReleasingStore(store, places, slices, slotLease(settings).staleMs);
    const deps: LifecycleDeps = { store, slices, wakeups, signals, children, continuations };
    this.worker = new WorkerMoves(deps);
    this.watcher = new WatcherMoves(deps);
    this.people = new PeopleMoves(deps);
    this.versions = new KindVersionMoves(deps);
  }

  // The Worker's moves, fenced by the slice's attempt.
  claimSlice: WorkerMoves['claimSlice'] = (task, move) => this.worker.claimSlice(task, move);
  handOffSlice: WorkerMoves['handOffSlice'] = (task, move) => this.worker.handOffSlice(task, move);
  continueSlice: WorkerMoves['continueSlice'] = (task, move) => this.worker.continueSlice(task, move);
  claimDone: WorkerMoves['claimDone'] = (task, move) => this.worker.claimDone(task, move);
  askPerson: WorkerMoves['askPerson'] = (task, move) => this.worker.askPerson(task, move);
  awaitChildren: WorkerMoves['awaitChildren'] = (task, move) => this.worker.awaitChildren(task, move);
  pauseForMoney: WorkerMoves['pauseForMoney'] = (task, move) => this.worker.pauseForMoney(task, move);
  failAttempt: WorkerMoves['failAttempt'] = (task, move) => this.worker.failAttempt(task, move);
  waitForTenantSlot: WorkerMoves['waitForTenantSlot'] = (task, move) =>
    this.worker.waitForTenantSlot(task, move);

  // The Watcher's moves, under its recovery lease and fenced by the attempt it read.
  recover: WatcherMoves['recover'] = (task, move) => this.watcher.recover(task, move);
  complete: WatcherMoves['complete'] = (task, move) => this.watcher.complete(task, move);
  failVerification: WatcherMoves['failVerification'] = (task, move) =>
    this.watcher.failVerification(task, move);
  requeueForRetry: WatcherMoves['requeueForRetry'] = (task, move) => this.watcher.requeueForRetry(task, move);
  continueAfterStoreFull: WatcherMoves['continueAfterStoreFull'] = (task, move) =>
    this.watcher.continueAfterStoreFull(task, move);
  failForLimit: WatcherMoves['failForLimit'] = (task, move) => this.watcher.failForLimit(task, move);
  giveUp: WatcherMoves['giveUp'] = (task, move) => this.watcher.giveUp(task, move);
  cancelChild: WatcherMoves['cancelChild'] = (task, move) => this.watcher.cancelChild(task, move);
  removeExpired: WatcherMoves['removeExpired'] = (task) => this.watcher.removeExpired(task);

  // People's and conversations' moves: never fenced, a stop or pause always wins.
  stop: PeopleMoves['stop'] = (task, move) => this.people.stop(task, move);
  pause: PeopleMoves['pause'] = (task, move) => this.people.pause(task, move);
  archive: PeopleMoves['archive'] = (task, move) => this.people.archive(task, move);
  resume: PeopleMoves['resume'] = (task, move) => this.people.resume(task, move);
  answer: PeopleMoves['answer'] = (task, move) => this.people.answer(task, move);

  // Versions (docs/kinds.md, "Versions"): a task no live Worker can run waits, and continues when one can.
  awaitKindVersion: KindVersionMoves['awaitKindVersion'] = (task, move) =>
    this.versions.awaitKindVersion(task, move);
  continueOnKindVersion: KindVersionMoves['continueOnKindVersion'] = (task, move) =>
    this.versions.continueOnKindVersion(task, move);
}
