import { ObjectKeys } from '@vigil/object-store';
import { MemoryObjectStore } from '@vigil/testing';
import { encodeNewTask } from '../task-codec';
import { InvalidCursorError } from '../task-errors';
import { ArchivedTasks } from './archived-tasks';
import { ArchiveUnreadableError, encodeArchive } from './task-archive.codec';
import type { TaskArchivePayload } from './task-archive.types';

function payload(taskId: string, tenantId = 'acme'): TaskArchivePayload {
  const record = {
    ...encodeNewTask(
      taskId,
      {
        tenantId,
        kind: 'noop',
        title: `task ${taskId}`,
        input: { steps: 1 },
        exitCriteria: [],
        budgetUsd: 1,
        model: 'opus',
        totalUnits: 1,
        sandbox: false,
        notify: {},
        agent: {},
        codeVersion: 'test',
      },
      1_700_000_000_000,
    ),
    status: 'completed',
  };
  return {
    taskId,
    tenantId,
    expiredAt: 1_700_000_100_000,
    record,
    actions: ['{"step":1}'],
    findings: [],
    messages: [],
    outputs: {},
    journal: {},
    doneSteps: [],
    children: [],
    report: `# task ${taskId}\n`,
    artifacts: [],
  };
}

describe('ArchivedTasks', () => {
  let store: MemoryObjectStore;
  let archives: ArchivedTasks;

  const archive = (taskId: string, tenantId = 'acme') =>
    store.put(
      ObjectKeys.archive(tenantId, taskId),
      encodeArchive(payload(taskId, tenantId)),
      'application/gzip',
    );

  beforeEach(() => {
    store = new MemoryObjectStore();
    archives = new ArchivedTasks(store);
  });

  it("finds a task's archive under its tenant, as it was written", async () => {
    await archive('tsk_a');
    expect(await archives.find('acme', 'tsk_a')).toEqual(payload('tsk_a'));
  });

  it('answers null for a task that has no archive', async () => {
    expect(await archives.find('acme', 'tsk_missing')).toBeNull();
  });

  it("answers null for another tenant's task, never reading outside the asking tenant's prefix", async () => {
    await archive('tsk_a', 'globex');
    const get = jest.spyOn(store, 'get');
    expect(await archives.find('acme', 'tsk_a')).toBeNull();
    expect(get.mock.calls.map(([key]) => key)).toEqual(['archive/acme/tsk_a.json.gz']);
  });

  it.each(['../globex/tsk_a', 'tsk a', '', 'x'.repeat(129)])(
    'answers null for an id that cannot name an object (%j), reading nothing',
    async (taskId) => {
      const get = jest.spyOn(store, 'get');
      expect(await archives.find('acme', taskId)).toBeNull();
      expect(get).not.toHaveBeenCalled();
    },
  );

  it('refuses a corrupt archive with an upstream error naming the task', async () => {
    await store.put(ObjectKeys.archive('acme', 'tsk_bad'), Buffer.from('not gzip'), 'application/gzip');
    const found = archives.find('acme', 'tsk_bad');
    await expect(found).rejects.toThrow(ArchiveUnreadableError);
    await expect(archives.find('acme', 'tsk_bad')).rejects.toMatchObject({
      kind: 'upstream',
      taskId: 'tsk_bad',
    });
  });

  it('refuses an archive whose document names another tenant than the prefix it lies under', async () => {
    await store.put(
      ObjectKeys.archive('acme', 'tsk_x'),
      encodeArchive(payload('tsk_x', 'globex')),
      'application/gzip',
    );
    await expect(archives.find('acme', 'tsk_x')).rejects.toThrow(/another tenant/);
  });

  describe('list', () => {
    it("pages the tenant's archived tasks in id order, the cursor being the last id, marked archived", async () => {
      for (const id of ['tsk_c', 'tsk_a', 'tsk_e', 'tsk_b', 'tsk_d']) await archive(id);
      await archive('tsk_other', 'globex');
      const first = await archives.list('acme', 2);
      expect(first.data.map((task) => task.id)).toEqual(['tsk_a', 'tsk_b']);
      expect(first.data.every((task) => task.archived && task.tenantId === 'acme')).toBe(true);
      expect(first.nextCursor).toBe('tsk_b');
      const second = await archives.list('acme', 2, first.nextCursor);
      expect(second).toMatchObject({ nextCursor: 'tsk_d' });
      expect(second.data.map((task) => task.id)).toEqual(['tsk_c', 'tsk_d']);
      const last = await archives.list('acme', 2, second.nextCursor);
      expect(last.data.map((task) => task.id)).toEqual(['tsk_e']);
      expect(last.nextCursor).toBeUndefined();
      expect(await archives.list('initech', 2)).toEqual({ data: [] });
    });

    it.each(['../x', 'tsk a', ''])('refuses a cursor that is no task id (%j)', async (cursor) => {
      await expect(archives.list('acme', 2, cursor)).rejects.toThrow(InvalidCursorError);
    });

    it('fails the page naming a listed archive that is gone when read, never leaving it out', async () => {
      await archive('tsk_a');
      await archive('tsk_b');
      const get = store.get.bind(store);
      jest
        .spyOn(store, 'get')
        .mockImplementation((key) => (key.includes('tsk_b') ? Promise.resolve(null) : get(key)));
      await expect(archives.list('acme', 10)).rejects.toThrow(ArchiveUnreadableError);
      await expect(archives.list('acme', 10)).rejects.toThrow(/tsk_b.*listed, then not found/);
    });

    it('fails the page naming a listed archive whose checksum does not match', async () => {
      await archive('tsk_a');
      await store.put(ObjectKeys.archive('acme', 'tsk_b'), Buffer.from('garbage'), 'application/gzip');
      await expect(archives.list('acme', 10)).rejects.toMatchObject({ kind: 'upstream', taskId: 'tsk_b' });
    });
  });

  it('without a bound object store finds nothing and lists nothing', async () => {
    const unbound = new ArchivedTasks();
    expect(await unbound.find('acme', 'tsk_a')).toBeNull();
    expect(await unbound.list('acme', 5)).toEqual({ data: [] });
  });
});
