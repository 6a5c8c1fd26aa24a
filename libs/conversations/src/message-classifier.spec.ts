import { classifyMessage, type Intent, type Route } from './message-classifier';

const ID = 'tsk_9f2c4e1a7b3d';

/** The labelled set: every message with the route and intent a person would expect. */
const LABELLED: [text: string, route: Route, intent: Intent][] = [
  // Plain questions and chat: one answer.
  ['Hello!', 'simple', 'answer'],
  ['Thanks, that was helpful.', 'simple', 'answer'],
  ['What can you do?', 'simple', 'answer'],
  ['What is a CPM bid strategy?', 'simple', 'answer'],
  ['How do I stop a campaign in Meta Ads Manager?', 'simple', 'answer'],
  ['Why would an ad set be rejected?', 'simple', 'answer'],
  ['Is research on competitors worth it for a small shop?', 'simple', 'answer'],
  ['Can you explain what an MCP server is?', 'simple', 'answer'],
  ['Who built you?', 'simple', 'answer'],
  ['What does "verifying" mean?', 'simple', 'answer'],
  ['good morning', 'simple', 'answer'],
  ['What is the difference between pause and stop?', 'simple', 'answer'],
  ["Qu'est-ce qu'un webhook ?", 'simple', 'answer'],
  ['¿Qué es una tarea en segundo plano?', 'simple', 'answer'],
  ['Was ist ein Exit-Kriterium?', 'simple', 'answer'],
  ['Merci beaucoup', 'simple', 'answer'],
  ['Write me a haiku about Redis', 'simple', 'answer'],
  ['test', 'simple', 'answer'],
  // Status, with and without a task id.
  ['How is it going?', 'tools', 'status'],
  ["How's the mission coming along?", 'tools', 'status'],
  ['Any updates?', 'tools', 'status'],
  ['Is it done yet?', 'tools', 'status'],
  ['Where are we?', 'tools', 'status'],
  ['status', 'tools', 'status'],
  [`What is the status of ${ID}?`, 'tools', 'status'],
  [`How far along is ${ID}`, 'tools', 'status'],
  [`${ID}?`, 'tools', 'status'],
  [`Tell me about ${ID}`, 'tools', 'status'],
  ['Où en est la mission ?', 'tools', 'status'],
  ['¿Cómo va la tarea?', 'tools', 'status'],
  ['Wie läuft es?', 'tools', 'status'],
  ['Was ist der Stand?', 'tools', 'status'],
  // Reads of the conversation's tasks.
  ['List my tasks', 'tools', 'list_tasks'],
  ['Which missions failed?', 'tools', 'list_tasks'],
  ['What did you find so far?', 'tools', 'findings'],
  [`Show the findings of ${ID}`, 'tools', 'findings'],
  ['Can I see the report?', 'tools', 'report'],
  [`Send me the report for ${ID}`, 'tools', 'report'],
  // Controls in words.
  ['stop', 'tools', 'stop'],
  ['Stop the mission.', 'tools', 'stop'],
  ['Please cancel it', 'tools', 'stop'],
  ['abort everything now!', 'tools', 'stop'],
  [`stop ${ID}`, 'tools', 'stop'],
  ['Can you stop the task please?', 'tools', 'stop'],
  ['pause', 'tools', 'pause'],
  ['Pause it for a moment', 'tools', 'pause'],
  ['hold on', 'tools', 'pause'],
  ['Put it on hold', 'tools', 'pause'],
  ['resume', 'tools', 'resume'],
  ['Continue the mission', 'tools', 'resume'],
  ['ok carry on', 'tools', 'resume'],
  ['Keep going please', 'tools', 'resume'],
  ['Arrête la mission', 'tools', 'stop'],
  ['Mets en pause', 'tools', 'pause'],
  ['Reprends', 'tools', 'resume'],
  ['Detén la tarea', 'tools', 'stop'],
  ['Reanuda la misión', 'tools', 'resume'],
  ['Bitte abbrechen', 'tools', 'stop'],
  ['Mach weiter', 'tools', 'resume'],
  // Many-step work: a mission.
  ['Research our five main competitors and write a report on their pricing.', 'mission', 'mission'],
  ['Walk through the staging web app and report every broken page.', 'mission', 'mission'],
  ['Can you compare the three CRM vendors on price, API limits and support?', 'mission', 'mission'],
  ['Please build the spring campaign with three ad sets.', 'mission', 'mission'],
  ['I need you to go through our open tickets and file a summary for each team.', 'mission', 'mission'],
  ['Audit the product pages for missing alt text', 'mission', 'mission'],
  [
    'Find all the conferences on AI safety in Europe next year and list their deadlines',
    'mission',
    'mission',
  ],
  ['Summarize the last 50 support emails and group them by topic', 'mission', 'mission'],
  ['Collect the release notes of every dependency we upgraded this month', 'mission', 'mission'],
  ['I need a detailed report on churn in Q3', 'mission', 'mission'],
  ['Write a detailed competitor report for the board', 'mission', 'mission'],
  ['Recherche les prix de nos concurrents et rédige un rapport', 'mission', 'mission'],
  ['Investiga los cinco competidores principales y prepara un informe', 'mission', 'mission'],
  ['Erstelle eine Übersicht aller offenen Rechnungen', 'mission', 'mission'],
];

describe('classifyMessage, the documented fallback router', () => {
  it('has a labelled set of at least 60 messages, some of them not English', () => {
    expect(LABELLED.length).toBeGreaterThanOrEqual(60);
    expect(new Set(LABELLED.map(([text]) => text)).size).toBe(LABELLED.length);
  });

  it.each(LABELLED)('routes %j as %s / %s', (text, route, intent) => {
    const classified = classifyMessage(text);
    expect({ route: classified.route, intent: classified.intent }).toEqual({ route, intent });
  });

  it('names the task id a message mentions', () => {
    expect(classifyMessage(`stop ${ID}`).taskId).toBe(ID);
    expect(classifyMessage('stop').taskId).toBeUndefined();
  });

  it('tells a new mission to run alongside the active one only when the message says so', () => {
    expect(classifyMessage('Research the top 10 CRMs in parallel with the current mission').alongside).toBe(
      true,
    );
    expect(classifyMessage('Investiga los precios al mismo tiempo').alongside).toBe(true);
    expect(classifyMessage('Research the top 10 CRMs').alongside).toBe(false);
  });

  it('gives the same route to the same text every time, whatever its case and accents', () => {
    expect(classifyMessage('ARRETE LA MISSION')).toEqual(classifyMessage('Arrête la mission'));
  });
});
