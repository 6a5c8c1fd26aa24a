/**
 * The steering rule of the documented router (docs/conversations.md, "Routing", rule 2): a message
 * that corrects the work under way — "skip the EU sites", "actually only check the pricing page",
 * "stop doing X, do Y instead" — rather than asking for new work. It is read on the normalised text
 * (lower case, no accents). The conversation acts on it only while its mission is unfinished;
 * otherwise the message is routed as if this rule did not exist.
 */

/** Words that open a correction (after an opener such as "ok", "please", "can you"). */
const CORRECTION_START = [
  // English
  'actually',
  'instead',
  'rather',
  'correction',
  'change of plan(?:s)?',
  'scratch that',
  'on second thought',
  'wait,? (?:no|actually)',
  "no,? (?:actually|instead|only|just|skip|don't|do not)",
  'skip',
  'ignore',
  'exclude',
  'leave out',
  'drop (?:the|all|any)',
  'forget (?:about )?(?:the|all|any)',
  "don't",
  'do not',
  'no need to',
  'never mind (?:the|about)',
  'stop (?:\\w+ing|doing)',
  'only',
  'just (?:check|look|do|use|focus|the)',
  'focus (?:only )?on',
  'also (?:check|include|add|look|cover)',
  'make sure (?:to|you)',
  'be sure to',
  'from now on',
  'prioriti[sz]e',
  'limit (?:it|yourself|the search) to',
  // French
  'en fait',
  'plutot',
  'au lieu de',
  'ignore',
  'saute',
  'laisse tomber',
  'ne (?:\\w+ )?pas',
  "n'\\w+ pas",
  'seulement',
  'uniquement',
  'concentre-toi sur',
  'desormais',
  // Spanish
  'en realidad',
  'mejor',
  'en vez de',
  'en lugar de',
  'omite',
  'salta',
  'ignora',
  'solo',
  'solamente',
  'no (?:revises|hagas|incluyas|mires|busques)',
  'centrate en',
  'a partir de ahora',
  // German
  'eigentlich',
  'stattdessen',
  'lieber',
  'uberspringe',
  'ignoriere',
  'lass (?:die|den|das)',
  'nur',
  'konzentriere dich auf',
  'ab jetzt',
  'nicht mehr',
];

/** Openers a correction may follow: "ok,", "please", "can you", "bitte". */
const OPENER =
  "(?:(?:ok(?:ay)?|hey|hi|so|oh|and|alright|vigil|please|pls|bitte|por favor|s'il te plait|s'il vous plait)[,!.]? )*" +
  '(?:(?:can|could|would) you (?:please )?|please |peux-tu |pouvez-vous |puedes |kannst du )?';

const STARTS_A_CORRECTION = new RegExp(`^${OPENER}(?:${CORRECTION_START.join('|')})\\b`);

/** A correction said in the middle of a message: "… and do Y instead", "X rather than Y". */
const CORRECTION_ANYWHERE =
  /\b(?:instead(?: of)?|rather than|from now on|au lieu de|a la place|desormais|en vez de|en lugar de|a partir de ahora|stattdessen|anstatt|ab jetzt)\b/;

/** A question about the work is answered, not taken as an instruction: "should I skip …?". */
const QUESTION =
  /^(?:what|how|why|when|who|where|which|is|are|does|did|should|qu'est|pourquoi|comment|quand|que|por que|como|cuando|was|wie|warum|wann|ist)\b/;

/**
 * The part of the rule that matched (for the decision's audit trail), or null when the message is
 * not a correction of the work under way.
 */
export function steeringRule(normal: string): string | null {
  // "Can you skip the EU sites?" asks for the change; "should we skip them?" asks about it.
  const request = new RegExp(`^${OPENER}`).exec(normal)?.[0].includes(' you ') ?? false;
  if (QUESTION.test(normal) || (normal.endsWith('?') && !request)) return null;
  if (normal.split(' ').length < 2) return null;
  if (STARTS_A_CORRECTION.test(normal)) return 'correction';
  if (CORRECTION_ANYWHERE.test(normal)) return 'instead';
  return null;
}
