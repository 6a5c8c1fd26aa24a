import type {
  GenerateContentResponse,
  Candidate,
  GenerateContentResponsePromptFeedback,
  GenerateContentResponseUsageMetadata,
  Part,
} from '@google/genai';
import { genAiSdk } from './provider-sdks';

/**
 * A `streamGenerateContent` reply put back together: the chunks' parts in order (a text part
 * may come in many pieces, a function call always whole), the last usage seen (each chunk's
 * usage is the running total), the prompt feedback and the candidate's last finish reason. The
 * assembled response reads the same as the one `generateContent` returns for the same answer:
 * its text parts joined, its function calls with their ids and thought signatures, its usage.
 * Text is handed on as it arrives, as `parse` reads it: neither thoughts nor function calls.
 */
export class GeminiStreamAssembly {
  private readonly parts: Part[] = [];
  private candidate?: Omit<Candidate, 'content'>;
  private usage?: GenerateContentResponseUsageMetadata;
  private feedback?: GenerateContentResponsePromptFeedback;

  constructor(private readonly onText?: (text: string) => void) {}

  add(chunk: GenerateContentResponse): void {
    if (chunk.usageMetadata) this.usage = chunk.usageMetadata;
    if (chunk.promptFeedback) this.feedback = chunk.promptFeedback;
    const candidate = chunk.candidates?.[0];
    if (!candidate) return;
    const { content, ...rest } = candidate;
    this.candidate = { ...this.candidate, ...rest };
    for (const part of content?.parts ?? []) {
      this.parts.push(part);
      if (this.onText && !part.thought && !part.functionCall && part.text) this.onText(part.text);
    }
  }

  response(): GenerateContentResponse {
    return Object.assign(new (genAiSdk().GenerateContentResponse)(), {
      ...(this.candidate
        ? { candidates: [{ ...this.candidate, content: { role: 'model', parts: this.parts } }] }
        : {}),
      ...(this.usage ? { usageMetadata: this.usage } : {}),
      ...(this.feedback ? { promptFeedback: this.feedback } : {}),
    });
  }
}
