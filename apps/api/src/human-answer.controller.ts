import { Body, Controller, Get, Header, Param, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { answerPageStatus, HumanAnswerUseCase, renderAnswerPage } from '@vigil/conversations';

/**
 * The answer pages of human hand-offs, `/h/<task id>.<secret>`: plain HTML forms for people, not
 * part of the JSON API (the secret in the link is their only credential).
 */
@ApiExcludeController()
@Controller('h')
export class HumanAnswerController {
  constructor(private readonly answers: HumanAnswerUseCase) {}

  @Get(':token')
  @Header('Cache-Control', 'no-store')
  @Header('Referrer-Policy', 'no-referrer')
  async page(@Param('token') token: string, @Res() res: Response): Promise<void> {
    const page = await this.answers.page(token);
    res.status(answerPageStatus(page)).type('html').send(renderAnswerPage(page));
  }

  @Post(':token')
  @Header('Cache-Control', 'no-store')
  @Header('Referrer-Policy', 'no-referrer')
  async answer(
    @Param('token') token: string,
    @Body() body: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const text = typeof body?.text === 'string' ? body.text.slice(0, 10_000) : '';
    const resolution =
      body?.resolution === 'done' || body?.resolution === 'not_done' ? body.resolution : undefined;
    const outcome = await this.answers.answer(token, { text, resolution });
    res.status(answerPageStatus(outcome, outcome)).type('html').send(renderAnswerPage(outcome, outcome));
  }
}
