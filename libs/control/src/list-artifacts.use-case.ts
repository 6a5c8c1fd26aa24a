import { Injectable } from '@nestjs/common';
import { type ArtifactEntry, ArtifactList } from '@vigil/tasks';

/**
 * `GET /v1/tasks/:id/artifacts` for a task of this tenant (docs/api.md, "Artifacts"): its artifact
 * list, live from Redis or, for an archived task, from its archive; entries as stored, oldest first.
 */
@Injectable()
export class ListArtifactsUseCase {
  constructor(private readonly artifacts: ArtifactList) {}

  execute(tenantId: string, taskId: string): Promise<ArtifactEntry[]> {
    return this.artifacts.forTenant(tenantId, taskId);
  }
}
