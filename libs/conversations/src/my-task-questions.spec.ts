import { classifyMessage, type Intent, type Route } from './message-classifier';
import type { MyTasksScope } from './my-task-questions';

/**
 * The labelled set of "my task(s)" questions without a task id, beside the classifier's own set
 * (message-classifier.spec.ts): English, French, Spanish and German, singular and plural, with and
 * without punctuation and accents. Each routes to `tools`, about the latest task (singular) or the
 * running ones (plural).
 */
const MY_TASK_QUESTIONS: [text: string, about: MyTasksScope][] = [
  // English
  ['is my task done yet?', 'my_task'],
  ['Is my task done yet', 'my_task'],
  ['Has my mission finished?', 'my_task'],
  ['is my job still running', 'my_task'],
  ["How's my task going?", 'my_task'],
  ['Any news on my task?', 'my_task'],
  ['how is my mission doing', 'my_task'],
  ['Where is my request at?', 'my_task'],
  ['What is the status of my task', 'my_task'],
  ['how are my tasks going?', 'my_tasks'],
  ['Are my tasks done', 'my_tasks'],
  ['Any updates on my missions?', 'my_tasks'],
  ['are our jobs still running?', 'my_tasks'],
  // French
  ['où en est ma tâche ?', 'my_task'],
  ['ou en est ma tache', 'my_task'],
  ['Ma mission est-elle terminée ?', 'my_task'],
  ['Est-ce que ma tâche est finie', 'my_task'],
  ['Comment va mon travail ?', 'my_task'],
  ['où en sont mes tâches ?', 'my_tasks'],
  ['Mes missions sont-elles terminées', 'my_tasks'],
  ['comment avancent mes taches ?', 'my_tasks'],
  // Spanish
  ['¿ya terminó mi tarea?', 'my_task'],
  ['ya termino mi tarea', 'my_task'],
  ['¿Cómo va mi misión?', 'my_task'],
  ['¿En qué estado está mi tarea?', 'my_task'],
  ['mi trabajo está listo?', 'my_task'],
  ['¿Cómo van mis tareas?', 'my_tasks'],
  ['ya terminaron mis tareas', 'my_tasks'],
  ['¿Cuál es el estado de mis misiones?', 'my_tasks'],
  // German
  ['ist meine Aufgabe fertig?', 'my_task'],
  ['Ist meine Aufgabe schon fertig', 'my_task'],
  ['Läuft mein Auftrag noch?', 'my_task'],
  ['wie steht es um meine Mission?', 'my_task'],
  ['Ist mein Job erledigt?', 'my_task'],
  ['Wie laufen meine Aufgaben?', 'my_tasks'],
  ['sind meine Aufträge fertig', 'my_tasks'],
  ['Wie ist der Stand meiner Aufgabe?', 'my_task'],
];

/** Messages that mention "my task(s)" but are not a question about where they stand. */
const NOT_ABOUT_MY_TASKS: [text: string, route: Route, intent: Intent][] = [
  ['How do I cancel my task from the API?', 'simple', 'answer'],
  ['How can I give my task a higher budget?', 'simple', 'answer'],
  ['My task list for tomorrow is long, any tips?', 'simple', 'answer'],
  ['Research why my tasks in Jira keep failing and write a report', 'mission', 'mission'],
  ['Compare my tasks in Asana with the ones in Linear', 'mission', 'mission'],
  ['Comment puis-je arrêter ma tâche ?', 'simple', 'answer'],
  ['¿Cómo puedo ver mi tarea en el panel?', 'simple', 'answer'],
  ['Wie kann ich meine Aufgabe fertig machen?', 'simple', 'answer'],
  ['Stop my task', 'tools', 'stop'],
  ['List my tasks', 'tools', 'list_tasks'],
  ['Is the sky blue yet?', 'simple', 'answer'],
  ['Thanks for doing my task so quickly', 'simple', 'answer'],
];

describe('"my task(s)" questions, in the fallback rules', () => {
  it('has a labelled set of at least 30, in four languages, singular and plural', () => {
    expect(MY_TASK_QUESTIONS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(MY_TASK_QUESTIONS.map(([text]) => text)).size).toBe(MY_TASK_QUESTIONS.length);
    expect(MY_TASK_QUESTIONS.filter(([, about]) => about === 'my_tasks').length).toBeGreaterThanOrEqual(10);
  });

  it.each(MY_TASK_QUESTIONS)('routes %j to tools, about %s', (text, about) => {
    const classified = classifyMessage(text);
    expect(classified).toMatchObject({
      route: 'tools',
      intent: about === 'my_task' ? 'status' : 'list_tasks',
      about,
    });
    expect(classified.taskId).toBeUndefined();
  });

  it.each(NOT_ABOUT_MY_TASKS)('leaves %j as %s / %s', (text, route, intent) => {
    const classified = classifyMessage(text);
    expect({ route: classified.route, intent: classified.intent }).toEqual({ route, intent });
    expect(classified.about).toBeUndefined();
  });

  it('prefers a task id the message names over "my task"', () => {
    const classified = classifyMessage('is my task tsk_9f2c4e1a7b3d done yet?');
    expect(classified).toMatchObject({ route: 'tools', intent: 'status', taskId: 'tsk_9f2c4e1a7b3d' });
    expect(classified.about).toBeUndefined();
  });
});
