/**
 * The deterministic router of conversation messages, used when no ROUTER_MODEL key is set (and as
 * the check on a model's answer). Its rules are documented in docs/conversations.md,
 * "Conversations": controls and status questions first, then reads of the conversation's tasks,
 * then requests for many-step work, and everything else is a plain answer. English, French,
 * Spanish and German phrasings are recognised; the same text always takes the same route.
 */

import { myTasksQuestion, type MyTasksScope } from './my-task-questions';
import { steeringRule } from './steering-rule';

export type Route = 'simple' | 'tools' | 'mission';

/** What a message asks for, beyond its route. */
export type Intent =
  | 'answer'
  | 'status'
  | 'stop'
  | 'pause'
  | 'resume'
  | 'list_tasks'
  | 'findings'
  | 'report'
  | 'mission'
  | 'steer';

export interface Classification {
  route: Route;
  intent: Intent;
  /** A task id the message names (`tsk_…`), when it names one. */
  taskId?: string;
  /** A new mission that should run beside the active one instead of archiving it. */
  alongside: boolean;
  /** Which rule decided, for the reply's audit trail and for tests. */
  rule: string;
  /** A question about "my task" (the conversation's latest) or "my tasks" (its running ones), naming no id. */
  about?: MyTasksScope;
}

export const TASK_ID_PATTERN = /\btsk_[A-Za-z0-9_-]{8,80}\b/;

/** Lower case, accents removed, apostrophes unified, spaces collapsed. */
export function normalise(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[’‘`´]/g, "'")
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** Openers a request may start with before its verb: "please", "hey vigil,", "can you", "bitte". */
const OPENER =
  "(?:(?:ok(?:ay)?|hey|hi|so|now|and|alright|vigil|please|pls|bitte|por favor|s'il te plait|s'il vous plait)[,!.]? )*" +
  "(?:(?:can|could|would|will) you (?:please )?|i (?:need|want|would like) you to |i'd like you to |go (?:and )?|let's |" +
  'peux-tu |pouvez-vous |tu peux |puedes |podrias |kannst du |konntest du )?';

const CONTROL_OBJECT =
  '(?: (?:the|this|that|it|my|our|current|active|mission|task|job|work|run|everything|all|now|please|right now|for now|for a moment|for a bit|la|le|ca|tout|esto|eso|la mision|la tarea|die|das|den|alles|auftrag|aufgabe|mission|bitte|jetzt|immediately|asap)\\b)*';

const CONTROLS: { intent: 'stop' | 'pause' | 'resume'; verbs: string }[] = [
  {
    intent: 'stop',
    verbs:
      'stop|cancel|abort|halt|kill|terminate|drop|end|arrete|arreter|annule|annuler|stoppe|deten|detener|cancela|cancelar|aborta|stopp|stoppe|abbrechen|brich (?:das |es )?ab|beende',
  },
  {
    intent: 'pause',
    verbs:
      'pause|hold(?: on)?|put (?:it|the mission|this|that) on hold|suspend|freeze|wait|mets (?:la |le |ca )?en pause|pausa|pausar|pon en pausa|pausiere|pausieren|halte an|warte',
  },
  {
    intent: 'resume',
    verbs:
      'resume|continue|carry on|keep going|go on|proceed|unpause|pick (?:it|this) (?:back )?up|reprends|reprendre|continue|reanuda|reanudar|continua|sigue|weiter|mach weiter|fortsetzen|setze fort',
  },
];

const CONTROL_RULES = CONTROLS.map(({ intent, verbs }) => ({
  intent,
  pattern: new RegExp(`^${OPENER}(?:${verbs})${CONTROL_OBJECT}[.!?]*$`),
}));

/** "How is it going?" and its kin: a status question about the active mission or a named task. */
const STATUS =
  /\b(?:how(?:'s| is| are) (?:it|this|that|things|the (?:mission|task|job|work|run|build|research))(?: going| coming along| doing| getting on)?|how far (?:along )?(?:is|are)|status|progress|any (?:news|updates?)|where (?:are we|is it|do we stand)|is it (?:done|finished|ready|complete)|are you (?:done|finished)|what(?:'s| is) (?:happening|going on|the state)|ou en (?:est|sommes)|comment (?:ca|cela) (?:avance|va)|statut|avancement|como va|en que estado|estado de|progreso|wie (?:laeuft|lauft|steht)|was ist der stand|fortschritt)\b/;

const LIST_TASKS =
  /\b(?:(?:list|show|which|what are) (?:me )?(?:all )?(?:my |our |the )?(?:tasks|missions|jobs)|(?:tasks|missions|jobs) (?:are )?(?:running|failed|done|completed)|mes taches|mis tareas|meine aufgaben)\b/;
const FINDINGS =
  /\b(?:findings?|what (?:did|have) you (?:find|found|learn|learned)|resultats|hallazgos|ergebnisse)\b/;
const REPORT = /\b(?:(?:the|its|final|your) report|rapport|informe|bericht)\b/;

/** Verbs of many-step work, as the first word of a request (after an opener). */
const WORK_VERBS = [
  'research',
  'investigate',
  'analy[sz]e',
  'compare',
  'audit',
  'review',
  'build',
  'create',
  'set up',
  'write (?:up )?(?:me )?(?:a |an |the )?(?:[a-z-]+ ){0,2}(?:report|summary|analysis|article|document|brief|overview|review|post|proposal|spec|comparison|plan)',
  'draft',
  'compile',
  'collect',
  'gather',
  'find (?:all|every|the (?:top|best|\\d+)|\\d+|out everything)',
  'crawl',
  'scrape',
  'walk through',
  'go through',
  'test',
  'migrate',
  'file',
  'open (?:tickets|issues|a ticket|an issue)',
  'monitor',
  'summari[sz]e',
  'prepare',
  'generate',
  'plan',
  'organi[sz]e',
  'look into',
  'dig into',
  'map out',
  'track down',
  'check (?:all|every|each)',
  'run (?:a |the )?(?:mission|task|job|audit|check)',
  'start (?:a |the )?(?:mission|task|job)',
  'recherche',
  'analyse',
  'compare',
  'cree',
  'redige',
  'prepare',
  'fais une? (?:etude|recherche|analyse|rapport)',
  'investiga',
  'analiza',
  'compara',
  'crea',
  'redacta',
  'prepara',
  'busca (?:todos|todas|los|las)',
  'haz un (?:informe|analisis|estudio)',
  'recherchiere',
  'analysiere',
  'vergleiche',
  'erstelle',
  'schreibe',
  'untersuche',
  'sammle',
];
const WORK_REQUEST = new RegExp(`^${OPENER}(?:${WORK_VERBS.join('|')})\\b`);
/** A request phrased as a need: "I need a report on …", "we need someone to go through …". */
const WORK_NEED =
  /^(?:i|we) (?:need|want|would like) (?:a|an|the|you to|someone to) (?:full |detailed |complete |thorough )?(?:report|analysis|audit|comparison|study|review|overview|list|summary)\b/;

const ALONGSIDE =
  /\b(?:alongside|in parallel|at the same time|simultaneously|as well|side by side|without stopping|don't stop|do not stop|keep the other|en parallele|en meme temps|al mismo tiempo|en paralelo|gleichzeitig|parallel)\b/;

/** Questions are answered, not run as missions: "what is", "how do I", "why", "¿qué es". */
const QUESTION_START =
  /^(?:what|what's|how|why|when|who|where|which|is|are|do|does|did|should|qu'est|qu'est-ce|pourquoi|comment|quand|que|que es|por que|como|cuando|was|wie|warum|wann|ist)\b/;

/**
 * Classifies one message by the documented rules (docs/conversations.md, "Conversations").
 * `steering: false` leaves out the steering rule: for a conversation with no mission under way.
 */
export function classifyMessage(text: string, options: { steering?: boolean } = {}): Classification {
  const normal = normalise(text);
  const taskId = TASK_ID_PATTERN.exec(text)?.[0];
  const alongside = ALONGSIDE.test(normal);
  const base = { alongside, ...(taskId ? { taskId } : {}) };

  for (const { intent, pattern } of CONTROL_RULES) {
    // A task id may follow a control word: "stop tsk_…".
    if (pattern.test(normal.replace(TASK_ID_PATTERN, '').trim()))
      return { ...base, route: 'tools', intent, rule: `control:${intent}` };
  }
  const steer = options.steering === false ? null : steeringRule(normal);
  if (steer) return { ...base, route: 'tools', intent: 'steer', rule: `steer:${steer}` };
  const question = QUESTION_START.test(normal) || normal.endsWith('?');
  const workRequest = WORK_REQUEST.test(normal) && normal.split(' ').length >= 3;
  if (!workRequest || question) {
    const about = taskId ? null : myTasksQuestion(normal);
    if (about === 'my_task') return { ...base, route: 'tools', intent: 'status', rule: about, about };
    if (about === 'my_tasks') return { ...base, route: 'tools', intent: 'list_tasks', rule: about, about };
    if (STATUS.test(normal)) return { ...base, route: 'tools', intent: 'status', rule: 'status' };
    if (REPORT.test(normal) && (taskId || question))
      return { ...base, route: 'tools', intent: 'report', rule: 'report' };
    if (FINDINGS.test(normal) && (taskId || question || normal.startsWith('show')))
      return { ...base, route: 'tools', intent: 'findings', rule: 'findings' };
    if (LIST_TASKS.test(normal)) return { ...base, route: 'tools', intent: 'list_tasks', rule: 'list' };
    if (taskId) return { ...base, route: 'tools', intent: 'status', rule: 'task-id' };
  }
  // "Can you research …?" is a request with a question mark; "What is research?" is a question.
  if (workRequest) return { ...base, route: 'mission', intent: 'mission', rule: 'work-verb' };
  if (WORK_NEED.test(normal)) return { ...base, route: 'mission', intent: 'mission', rule: 'work-need' };
  return { ...base, route: 'simple', intent: 'answer', rule: 'default' };
}
