import { classifyMessage } from './message-classifier';

/**
 * The steering rule (docs/conversations.md, "Routing", rule 2): labelled messages that correct the
 * mission under way, and messages that must not be taken for a correction.
 */
const STEERS: string[] = [
  'Skip the EU sites',
  'Actually, only check the pricing page.',
  'Stop doing the competitor list, do the pricing table instead',
  'ok, ignore the archived tickets',
  "Don't email anyone, just draft the messages",
  'Only look at vendors with an EU data centre',
  'Instead of CSV, write the results as JSON',
  'Focus on the three largest customers',
  'Also check the staging environment',
  'Please exclude the test accounts',
  'Can you skip the EU sites?',
  'No need to open tickets for duplicates',
  'From now on, use the sandbox account',
  'Change of plan: compare only the annual prices',
  'Research the US vendors rather than the EU ones',
  'En fait, ignore les sites européens',
  'Ne regarde pas les pages archivées',
  'Uniquement la page des tarifs, s’il te plaît',
  'En realidad, solo revisa la página de precios',
  'Omite los sitios de la UE',
  'Eigentlich nur die Preisseite prüfen',
  'Überspringe die EU-Seiten',
  'Stattdessen die Jahrespreise vergleichen',
];

const DOES_NOT_STEER: [text: string, route: string, intent: string][] = [
  ['Research the three CRM vendors and file a comparison ticket', 'mission', 'mission'],
  ['How is it going?', 'tools', 'status'],
  ['Stop', 'tools', 'stop'],
  ['Pause the mission', 'tools', 'pause'],
  ['Should we skip the EU sites?', 'simple', 'answer'],
  ['What does "only" mean in a filter?', 'simple', 'answer'],
  ['Thanks, that was helpful.', 'simple', 'answer'],
  ['Hello!', 'simple', 'answer'],
  ['skip', 'simple', 'answer'],
  ['Is it done yet?', 'tools', 'status'],
];

describe('the steering rule', () => {
  it.each(STEERS)('takes "%s" for a correction of the mission under way', (text) => {
    expect(classifyMessage(text)).toMatchObject({
      route: 'tools',
      intent: 'steer',
      rule: expect.stringMatching(/^steer:/),
    });
  });

  it.each(DOES_NOT_STEER)('does not take "%s" for a correction', (text, route, intent) => {
    expect(classifyMessage(text)).toMatchObject({ route, intent });
  });

  it('is left out for a conversation with no mission under way: the message is routed as usual', () => {
    expect(
      classifyMessage('Research the US vendors rather than the EU ones', { steering: false }),
    ).toMatchObject({
      route: 'mission',
    });
    expect(classifyMessage('Skip the EU sites', { steering: false })).toMatchObject({ route: 'simple' });
  });
});
