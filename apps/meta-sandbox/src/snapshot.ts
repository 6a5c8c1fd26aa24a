import type { SandboxStore } from './store';
import type { DuplicateGroup, ObjectKind } from './types';

export const PLURAL: Record<ObjectKind, string> = {
  campaign: 'campaigns',
  adset: 'adsets',
  adimage: 'adimages',
  adcreative: 'adcreatives',
  ad: 'ads',
};

export interface SandboxSnapshot {
  counts: Record<string, number>;
  objects: Record<string, Record<string, unknown>[]>;
  duplicates: DuplicateGroup[];
}

/** Every stored object by type (internal fields and image bytes left out), with counts and duplicates. */
export function snapshot(store: SandboxStore): SandboxSnapshot {
  const all = store.all();
  const counts: Record<string, number> = {};
  const objects: Record<string, Record<string, unknown>[]> = {};
  for (const kind of Object.keys(PLURAL) as ObjectKind[]) {
    const records = all[kind].sort((a, b) => a.seq - b.seq);
    counts[PLURAL[kind]] = records.length;
    objects[PLURAL[kind]] = records.map((record) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(record)) {
        if (key === 'bytes') out.size_bytes = (value as Buffer).length;
        else if (key !== 'seq' && key !== 'kind') out[key] = value;
      }
      return out;
    });
  }
  return { counts, objects, duplicates: store.duplicates() };
}
