import { Body, Controller, Get, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ConversationMessageDto, HandleMessageUseCase, ReadConversationUseCase } from '@vigil/conversations';
import { ApiKeyGuard } from './http/api-key.guard';
import { schemaRef } from './http/openapi-schemas';
import { Tenant } from './http/tenant.decorator';
import { RateLimited } from './limits/rate-limited.decorator';

@ApiTags('conversations')
@Controller('v1/conversations')
@UseGuards(ApiKeyGuard)
export class ConversationsController {
  constructor(
    private readonly handle: HandleMessageUseCase,
    private readonly read: ReadConversationUseCase,
  ) {}

  @Post(':id/messages')
  @ApiOperation({
    summary:
      'A message in a conversation: answered at once (simple), answered from its tasks or acted on (tools: status, findings, report, stop, pause, resume), or started as a mission in the background',
  })
  @ApiCreatedResponse({
    description: 'the route taken, the reply and, for a mission, its task id',
    schema: schemaRef('ConversationReply'),
  })
  @RateLimited()
  message(
    @Tenant() tenantId: string,
    @Param('id') conversationId: string,
    @Body() body: ConversationMessageDto,
  ) {
    return this.handle.execute(tenantId, conversationId, body);
  }

  @Get(':id/messages')
  @ApiOperation({
    summary:
      "The conversation: the person's messages, the replies with their route, and its tasks' messages, in time order",
  })
  @ApiOkResponse({ description: '{data: [...]}, oldest first', schema: schemaRef('ConversationPage') })
  messages(@Tenant() tenantId: string, @Param('id') conversationId: string) {
    return this.read.execute(tenantId, conversationId);
  }
}
