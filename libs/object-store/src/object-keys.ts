/**
 * The object store's layout (docs/operations.md, "The object store"):
 *   archive/<tenant>/<task id>.json.gz
 *   artifacts/<tenant>/<task id>/<sha256>
 *   doctor/probe-<nonce>                      (written, read back and deleted by `vigil doctor`)
 * Every part is checked against a strict pattern before it becomes a key, so a crafted id can never
 * reach outside the store's root or into another tenant's prefix, whatever the driver.
 */
const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;
const SHA256 = /^[0-9a-f]{64}$/;
const PROBE_NONCE = /^[0-9a-f]{8,64}$/;

export class InvalidObjectKeyError extends Error {
  constructor(what: string, value: string) {
    super(`${what} ${JSON.stringify(value.slice(0, 80))} cannot name an object`);
    this.name = 'InvalidObjectKeyError';
  }
}

function checked(what: string, value: string, pattern: RegExp): string {
  if (typeof value !== 'string' || !pattern.test(value)) throw new InvalidObjectKeyError(what, String(value));
  return value;
}

export const ObjectKeys = {
  /** The archive document of a finished task. */
  archive(tenantId: string, taskId: string): string {
    return `${ObjectKeys.archivePrefix(tenantId)}${checked('task id', taskId, TASK_ID)}.json.gz`;
  },

  /** Every archive of one tenant (for listing), ending in a slash. */
  archivePrefix(tenantId: string): string {
    return `archive/${checked('tenant id', tenantId, TENANT_ID)}/`;
  },

  /** The task id of an archive key listed under `archivePrefix`, or null for any other key. */
  taskIdOfArchive(key: string): string | null {
    const match = /^archive\/[A-Za-z0-9_-]{1,64}\/([A-Za-z0-9_-]{1,128})\.json\.gz$/.exec(key);
    return match ? match[1] : null;
  },

  /** An artifact or a claim-checked tool output of a task, by the SHA-256 of its bytes. */
  artifact(tenantId: string, taskId: string, sha256: string): string {
    return `${ObjectKeys.artifactPrefix(tenantId, taskId)}${checked('artifact id', sha256, SHA256)}`;
  },

  /** Every artifact of one task, ending in a slash. */
  artifactPrefix(tenantId: string, taskId: string): string {
    return `artifacts/${checked('tenant id', tenantId, TENANT_ID)}/${checked('task id', taskId, TASK_ID)}/`;
  },

  /** A probe object `vigil doctor` writes, reads back and deletes to prove the store works. */
  doctorProbe(nonce: string): string {
    return `doctor/probe-${checked('probe nonce', nonce, PROBE_NONCE)}`;
  },
};
