import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { TenantSpend } from '@vigil/tasks';
import { ApiKeyGuard } from './http/api-key.guard';
import { schemaRef } from './http/openapi-schemas';
import { Tenant } from './http/tenant.decorator';

@ApiTags('tenant')
@Controller('v1/tenant')
@UseGuards(ApiKeyGuard)
export class TenantController {
  constructor(private readonly spend: TenantSpend) {}

  @Get('spend')
  @ApiOperation({
    summary: "The caller's tenant's model spend of the current UTC day, against its daily budget",
  })
  @ApiOkResponse({ description: 'spent and budget of today (UTC)', schema: schemaRef('TenantSpend') })
  today(@Tenant() tenantId: string) {
    return this.spend.today(tenantId);
  }
}
