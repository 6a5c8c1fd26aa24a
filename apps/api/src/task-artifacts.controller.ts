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
    const { body, contentType, inline, entry } = await this.getArtifact.execute(tenantId, id, artifactId);
    const extension = (contentType.split('/')[1] ?? 'bin').replace(/[^a-z0-9]/g, '').slice(0, 8) || 'bin';
    const filename = `${entry.id.slice(0, 16)}.${extension}`;
    res.setHeader('Content-Type', contentType);
    res.setHeader('Content-Length', String(body.length));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Bytes by hash never change; they are the tenant's own, so no shared cache keeps them.
    res.setHeader('Cache-Control', 'private, max-age=31536000, immutable');
    res.setHeader('Content-Disposition', `${inline ? 'inline' : 'attachment'}; filename="${filename}"`);
    if (!inline) res.setHeader('Content-Security-Policy', 'sandbox');
    res.status(200).end(body);
  }
}
