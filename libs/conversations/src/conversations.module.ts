import { DynamicModule, Module } from '@nestjs/common';
import { GlobalSpendGate } from '@vigil/agent';
import { MODELS_CONFIG, type ModelsConfig } from '@vigil/config';
import { TasksModule } from '@vigil/tasks';
import { HandleMessageUseCase, TOOLS_LOOP } from './handle-message.use-case';
import { HumanAnswerUseCase } from './human/human-answer.use-case';
import { createMessageRouter, MESSAGE_ROUTER } from './model-router';
import { ReadConversationUseCase } from './read-conversation.use-case';
import { createToolsLoop } from './tools-loop';

/** Conversations: routing each message, acting on it, and reading the conversation back. */
@Module({})
export class ConversationsModule {
  /** `control` is the API's one ControlModule instance: messages act through the same use cases as the routes. */
  static forRoot(control: DynamicModule): DynamicModule {
    const useCases = [HandleMessageUseCase, ReadConversationUseCase, HumanAnswerUseCase];
    return {
      module: ConversationsModule,
      imports: [control, TasksModule],
      providers: [
        ...useCases,
        GlobalSpendGate,
        {
          provide: MESSAGE_ROUTER,
          inject: [MODELS_CONFIG],
          useFactory: (models: ModelsConfig) => createMessageRouter(models),
        },
        {
          provide: TOOLS_LOOP,
          inject: [MODELS_CONFIG],
          useFactory: (models: ModelsConfig) => createToolsLoop(models),
        },
      ],
      exports: useCases,
    };
  }
}
