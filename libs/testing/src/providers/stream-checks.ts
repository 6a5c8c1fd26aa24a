import type { ServerResponse } from 'node:http';
import type { GenerateResult, ModelProvider } from '@vigil/agent';
import { wireRequest } from './wire-request';

/** How a provider's fake serves one streamed reply, part by part. */
export interface StreamServer<Part> {
  /** Makes `answer` the fake's answer to the requests that follow. */
  answerWith(answer: (res: ServerResponse) => void): void;
  open(res: ServerResponse): void;
  write(res: ServerResponse, parts: readonly Part[]): void;
}

/** Resolves once `res` is closed (by the client going away, or by the fake ending it). */
export const closed = (res: ServerResponse) =>
  new Promise<void>((resolve) => res.on('close', () => resolve()));

/**
 * Serves `head`, and `tail` only once the provider handed a first piece of text on, so that piece
 * cannot have come from a finished call: the pieces handed on before the call returned, and its reply.
 */
export async function textHandedOnMidStream<Part>(
  server: StreamServer<Part>,
  provider: ModelProvider,
  head: readonly Part[],
  tail: readonly Part[],
): Promise<{ seenBeforeEnd: string[]; reply: GenerateResult }> {
  let release!: () => void;
  const textSeen = new Promise<void>((resolve) => (release = resolve));
  server.answerWith((res) => {
    server.open(res);
    server.write(res, head);
    void textSeen.then(() => {
      server.write(res, tail);
      res.end();
    });
  });
  let ended = false;
  const seenBeforeEnd: string[] = [];
  const reply = await provider.generate({
    ...wireRequest([{ role: 'user', content: 'Go.' }]),
    onText: (text) => {
      if (!ended) seenBeforeEnd.push(text);
      release();
    },
  });
  ended = true;
  return { seenBeforeEnd, reply };
}

/**
 * Serves `head` and then nothing, as a model still writing, and aborts the call at its first piece
 * of text: what the call rejected with and the abort's reason, once the connection has closed.
 */
export async function abortMidStream<Part>(
  server: StreamServer<Part>,
  provider: ModelProvider,
  head: readonly Part[],
): Promise<{ error: unknown; reason: Error }> {
  let connection!: Promise<void>;
  server.answerWith((res) => {
    connection = closed(res);
    server.open(res);
    server.write(res, head);
  });
  const controller = new AbortController();
  const reason = new Error('task was stopped');
  const error = await provider
    .generate({
      ...wireRequest([{ role: 'user', content: 'Go.' }], controller.signal),
      onText: () => controller.abort(reason),
    })
    .catch((e: unknown) => e);
  await connection;
  return { error, reason };
}
