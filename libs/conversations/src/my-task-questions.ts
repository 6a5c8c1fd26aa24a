/**
 * Questions about "my task" or "my tasks" that name no task id (docs/conversations.md, "Questions
 * about my tasks"): "is my task done yet?", "où en sont mes tâches ?", "¿ya terminó mi tarea?",
 * "ist meine Aufgabe fertig?". They are answered from the conversation's tasks, never from a
 * model's guess: one task (singular) is the conversation's latest; several (plural) are its running
 * ones, else its recent ones. The text is already normalised (lower case, no accents).
 */

/** Which of the conversation's tasks a question is about. */
export type MyTasksScope = 'my_task' | 'my_tasks';

// The user's own task(s), in English, French, Spanish and German ("mein Auftrag", "meine Aufträge").
const MY_ONE =
  /\b(?:(?:my|our) (?:task|mission|job|run|request)|(?:ma|notre) (?:tache|mission|demande)|mon (?:travail|job)|(?:mi|nuestra) (?:tarea|mision|solicitud)|mi trabajo|(?:meine|unsere|meiner) (?:aufgabe|mission)|(?:mein|unser|meinem) (?:auftrag|job))\b(?! (?:list|lists|board|manager|template)\b)/;
const MY_MANY =
  /\b(?:(?:my|our) (?:tasks|missions|jobs|runs|requests)|(?:mes|nos) (?:taches|missions|demandes|travaux)|(?:mis|nuestras) (?:tareas|misiones|solicitudes)|mis trabajos|(?:meine|unsere|meinen) (?:aufgaben|auftrage|missionen|jobs))\b/;

/** What makes it a question about where they stand, not a request, a "how do I" or a plan. */
const STANDING =
  /\b(?:done|finished|ready|complete|completed|over|yet|going|how(?:'s| is| are)|coming along|getting on|progress|status|state|updates?|news|running|stuck|working|failed|succeeded|still|where|happening|fini|finie|finis|finies|termine|terminee|terminees|termines|avance|avancent|statut|etat|progres|en cours|ou en|pret|prete|prets|ca donne|comment va|comment vont|termino|terminaron|terminado|terminada|terminadas|terminados|listo|lista|listas|listos|acabo|acabaron|como va|como van|estado|progreso|en que va|ya|fertig|erledigt|abgeschlossen|lauft|laufen|steht|stehen|stand|fortschritt|schon|noch)\b/;

/** "How do I …", "comment puis-je …", "¿cómo puedo …?", "wie kann ich …": a question of how-to. */
const HOW_TO =
  /\b(?:how (?:do|can|should|would) (?:i|we)|how to|comment (?:puis|peut|pourrais|faire)|como (?:puedo|podemos|hago|se)|wie (?:kann|konnen|soll|mache) (?:ich|wir|man))\b/;

/**
 * Whether the normalised message asks where the user's task (or tasks) stand: it names the user's
 * own task(s), says something about their standing, and is no how-to question.
 */
export function myTasksQuestion(normal: string): MyTasksScope | null {
  if (HOW_TO.test(normal) || !STANDING.test(normal)) return null;
  if (MY_MANY.test(normal)) return 'my_tasks';
  if (MY_ONE.test(normal)) return 'my_task';
  return null;
}
