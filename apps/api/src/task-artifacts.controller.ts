import { Controller, Get, Param, Res, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { GetArtifactUseCase, ListArtifactsUseCase } from '@vigil/control';
import { ApiKeyGuard } from './http/api-key.guard';
import { sendArtifact } from './http/artifact-response';
import { schemaRef } from './http/openapi-schemas';
import { Tenant } from './http/tenant.decorator';

/**
 * A task's artifacts (docs/api.md, "Artifacts"): the list, and each one's bytes. A tool's output is
 * untrusted: the bytes go with `nosniff`, inline only when they are a PNG, JPEG, WebP or GIF by
 * their magic bytes, and anything else (an SVG, an HTML page) as an attachment under
 * `Content-Security-Policy: sandbox`, so nothing a tool returned ever runs on the API's origin.
 */
@ApiTags('tasks')
@ApiBearerAuth()
@Controller('v1/tasks')
@UseGuards(ApiKeyGuard)
export class TaskArtifactsController {
  constructor(
    private readonly listArtifacts: ListArtifactsUseCase,
    private readonly getArtifact: GetArtifactUseCase,
  ) {}

  @Get(':id/artifacts')
  @ApiOperation({
    summary: "The task's artifacts (images, files and large outputs kept in the object store)",
    description:
      'Oldest first, one entry per artifact and step. An archived task answers the list its archive kept.',
  })
  @ApiOkResponse({ description: 'the artifacts', schema: schemaRef('ArtifactList') })
  @ApiNotFoundResponse({ description: "no such task for this API key's tenant" })
  async artifacts(@Tenant() tenantId: string, @Param('id') id: string) {
    return { data: await this.listArtifacts.execute(tenantId, id) };
  }

  @Get(':id/artifacts/:artifactId')
  @ApiOperation({
    summary: 'One artifact’s bytes',
    description:
      'With its content type and `X-Content-Type-Options: nosniff`. Inline only for a PNG, JPEG, WebP or GIF verified by its magic bytes; anything else is `Content-Disposition: attachment` with `Content-Security-Policy: sandbox`. At most MAX_ARTIFACT_BYTES.',
  })
  @ApiProduces('application/octet-stream', 'image/png', 'image/jpeg', 'image/webp', 'image/gif')
  @ApiOkResponse({
    description: 'the bytes, whose SHA-256 is the id',
    schema: { type: 'string', format: 'binary' },
  })
  @ApiBadRequestResponse({ description: 'the id is not a SHA-256 (64 lowercase hex characters)' })
  @ApiNotFoundResponse({
    description: "no such task for this API key's tenant, or no such artifact in its list",
  })
  async artifact(
    @Tenant() tenantId: string,
    @Param('id') id: string,
    @Param('artifactId') artifactId: string,
    @Res() res: Response,
  ): Promise<void> {
    sendArtifact(res, await this.getArtifact.execute(tenantId, id, artifactId));
  }
}
