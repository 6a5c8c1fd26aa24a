import type { TaskKind } from '@vigil/kinds';
import { noopKind } from './noop/noop.kind';
import { campaignBuildKind } from './campaign-build/campaign-build.kind';
import { missionKind } from './mission/mission.kind';

/** Adding a kind is adding it here: no app changes. */
export const BUILT_IN_KINDS: TaskKind[] = [
  noopKind as TaskKind,
  campaignBuildKind as TaskKind,
  missionKind as TaskKind,
];
