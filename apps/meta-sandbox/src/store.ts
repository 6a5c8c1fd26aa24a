import type { AnyRecord, DuplicateGroup, ObjectKind, RecordOf } from './types';

const ID_BASE = 120210000000000000n;
const KINDS: readonly ObjectKind[] = ['campaign', 'adset', 'adimage', 'adcreative', 'ad'];

/** Meta's timestamp format, e.g. `2024-05-01T12:00:00+0000`. */
export function metaTime(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, '+0000');
}

/** Parent used for duplicate detection: the object a create would be scoped under. */
export function parentOf(record: AnyRecord): string {
  switch (record.kind) {
    case 'adset':
      return record.campaign_id;
    case 'ad':
      return record.adset_id;
    default:
      return `act_${record.account_id}`;
  }
}

/** In-memory object store. Ids are never reused within a process, even across reset(). */
export class SandboxStore {
  private readonly byId = new Map<string, AnyRecord>();
  private seq = 0;

  nextIdentity(): { id: string; seq: number } {
    this.seq += 1;
    return { id: (ID_BASE + BigInt(this.seq)).toString(), seq: this.seq };
  }

  /** Adds a record; images use `<account>:<hash>` ids supplied by the caller. */
  add<T extends AnyRecord>(record: T): T {
    this.byId.set(record.id, record);
    return record;
  }

  get(id: string): AnyRecord | undefined {
    return this.byId.get(id);
  }

  getKind<K extends ObjectKind>(kind: K, id: string, accountId?: string): RecordOf<K> | undefined {
    const record = this.byId.get(id);
    if (!record || record.kind !== kind) return undefined;
    if (accountId !== undefined && record.account_id !== accountId) return undefined;
    return record as RecordOf<K>;
  }

  list<K extends ObjectKind>(kind: K, predicate: (r: RecordOf<K>) => boolean = () => true): RecordOf<K>[] {
    const out: RecordOf<K>[] = [];
    for (const record of this.byId.values()) {
      if (record.kind === kind && predicate(record as RecordOf<K>)) out.push(record as RecordOf<K>);
    }
    return out;
  }

  imageByHash(accountId: string, hash: string): RecordOf<'adimage'> | undefined {
    return this.getKind('adimage', `${accountId}:${hash}`);
  }

  counts(): Record<ObjectKind, number> {
    const counts = { campaign: 0, adset: 0, adimage: 0, adcreative: 0, ad: 0 };
    for (const record of this.byId.values()) counts[record.kind] += 1;
    return counts;
  }

  all(): Record<ObjectKind, AnyRecord[]> {
    const out = Object.fromEntries(KINDS.map((k) => [k, [] as AnyRecord[]])) as Record<
      ObjectKind,
      AnyRecord[]
    >;
    for (const record of this.byId.values()) out[record.kind].push(record);
    return out;
  }

  duplicates(): DuplicateGroup[] {
    const groups = new Map<string, DuplicateGroup>();
    for (const record of this.byId.values()) {
      const parentId = parentOf(record);
      const key = JSON.stringify([record.kind, parentId, record.name]);
      const group = groups.get(key) ?? { kind: record.kind, parentId, name: record.name, ids: [] };
      group.ids.push(record.id);
      groups.set(key, group);
    }
    return [...groups.values()].filter((g) => g.ids.length > 1);
  }

  reset(): void {
    this.byId.clear();
  }
}
