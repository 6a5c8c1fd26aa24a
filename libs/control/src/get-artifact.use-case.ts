import { Inject, Injectable, Optional } from '@nestjs/common';
import { STORAGE_CONFIG, type StorageConfig } from '@vigil/config';
import { OBJECT_STORE, ObjectKeys, type ObjectStore } from '@vigil/object-store';
import {
  type ArtifactEntry,
  ArtifactList,
  ArtifactNotFoundError,
  InvalidArtifactIdError,
  isArtifactId,
  rasterTypeOf,
} from '@vigil/tasks';

/** An artifact's bytes and how they may be served. */
export interface ArtifactContent {
  entry: ArtifactEntry;
  body: Buffer;
  /** The type it is served as: the verified raster type when inline, else the type the tool gave. */
  contentType: string;
  /** Only a PNG, JPEG, WebP or GIF by its magic bytes is ever shown inline. */
  inline: boolean;
}

/**
 * `GET /v1/tasks/:id/artifacts/:artifactId` (docs/api.md, "Artifacts"): the bytes of one artifact
 * of the tenant's own task, live or archived. The id must be a SHA-256 (else 400) and in the
 * task's list (else 404: an id of another task or tenant is never looked up in the store, since
 * the key is built from this tenant and task only), at most MAX_ARTIFACT_BYTES (its size read
 * before its bytes).
 */
@Injectable()
export class GetArtifactUseCase {
  constructor(
    private readonly artifacts: ArtifactList,
    @Inject(STORAGE_CONFIG) private readonly storage: Pick<StorageConfig, 'maxArtifactBytes'>,
    // Bound in every app that serves the API (ObjectStoreModule); optional like ArchivedTasks's.
    @Optional() @Inject(OBJECT_STORE) private readonly store?: ObjectStore,
  ) {}

  async execute(tenantId: string, taskId: string, artifactId: string): Promise<ArtifactContent> {
    if (!isArtifactId(artifactId)) throw new InvalidArtifactIdError(artifactId);
    const entry = (await this.artifacts.forTenant(tenantId, taskId)).find(
      (listed) => listed.id === artifactId,
    );
    if (!entry) throw new ArtifactNotFoundError(taskId, artifactId);
    if (!this.store)
      throw new ArtifactNotFoundError(taskId, artifactId, 'is not reachable: no object store is bound');
    const key = ObjectKeys.artifact(tenantId, taskId, artifactId);
    const size = await this.store.head(key);
    if (!size) throw new ArtifactNotFoundError(taskId, artifactId, 'is no longer kept');
    if (size.bytes > this.storage.maxArtifactBytes)
      throw new ArtifactNotFoundError(
        taskId,
        artifactId,
        `is larger than MAX_ARTIFACT_BYTES (${this.storage.maxArtifactBytes}): not served`,
      );
    const body = await this.store.get(key);
    if (!body) throw new ArtifactNotFoundError(taskId, artifactId, 'is no longer kept');
    const raster = rasterTypeOf(body);
    return { entry, body, contentType: raster ?? entry.mimeType, inline: raster !== null };
  }
}
