import { Body, Controller, Param, Post, UseGuards } from '@nestjs/common';
import { ConversationMessageDto, RouteMessageUseCase } from '@vigil/control';
import { ApiKeyGuard } from './http/api-key.guard';
import { Tenant } from './http/tenant.decorator';
import { RateLimited } from './limits/rate-limited.decorator';

@Controller('v1/conversations')
@UseGuards(ApiKeyGuard)
export class ConversationsController {
  constructor(private readonly route: RouteMessageUseCase) {}

  @Post(':id/messages')
  @RateLimited()
  message(
    @Tenant() tenantId: string,
    @Param('id') conversationId: string,
    @Body() body: ConversationMessageDto,
  ) {
    return this.route.execute(tenantId, conversationId.slice(0, 80).replace(/[^A-Za-z0-9_-]/g, '_'), body);
  }
}
