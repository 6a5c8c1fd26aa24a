import { Injectable } from '@nestjs/common';
import { ReadableTasks } from '@vigil/tasks';

/**
 * `GET /v1/tasks/:id/artifacts` for a task of this tenant: an archived task answers the artifact
 * list its archive kept, entries as stored. Redis keeps no artifact list of a live task yet, so a
 * live task answers none.
 */
@Injectable()
export class ListArtifactsUseCase {
  constructor(private readonly reads: ReadableTasks) {}

  async execute(tenantId: string, taskId: string): Promise<unknown[]> {
    const { archive } = await this.reads.find(tenantId, taskId);
    return (archive?.artifacts ?? []).map((entry) => JSON.parse(entry) as unknown);
  }
}
