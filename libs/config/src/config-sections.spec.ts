import {
  loadConfig,
  SECTION_FIELDS,
  SECTION_TOKENS,
  sectionProviders,
  sectionsOf,
  settingsOf,
  settingsProvider,
  type VigilConfig,
} from './index';

const config = loadConfig({
  ANTHROPIC_API_KEY: 'sk-test',
  ADMIN_PASSWORD: 'admin-secret',
  METRICS_TOKEN: 't',
});
const sections = sectionsOf(config);

describe('config sections', () => {
  it('puts every field of the loaded config in exactly one section', () => {
    const placed = Object.values(SECTION_FIELDS).flat() as string[];
    // Keys of the loaded object, not of the type: a field added to loadConfig without a section fails here.
    expect([...placed].sort()).toEqual(Object.keys(config).sort());
    expect(new Set(placed).size).toBe(placed.length);
  });

  it.each(Object.keys(SECTION_FIELDS) as (keyof typeof SECTION_FIELDS)[])(
    'builds the %s section from its own fields only, frozen',
    (name) => {
      const section = sections[name] as Record<string, unknown>;
      expect(Object.isFrozen(section)).toBe(true);
      expect(Object.keys(section).sort()).toEqual([...SECTION_FIELDS[name]].sort());
      for (const field of SECTION_FIELDS[name])
        expect(section[field]).toBe(config[field as keyof VigilConfig]);
    },
  );

  it('keeps secrets out of the sections that do not own them', () => {
    const secrets = [
      'apiKeys',
      'adminPassword',
      'metricsToken',
      'webhookSecret',
      'anthropicApiKey',
      'geminiApiKey',
    ];
    for (const [name, section] of Object.entries(sections)) {
      const owned = SECTION_FIELDS[name as keyof typeof SECTION_FIELDS] as readonly string[];
      for (const secret of secrets.filter((field) => !owned.includes(field)))
        expect(section).not.toHaveProperty(secret);
    }
    expect(sections.clocks).not.toHaveProperty('apiKeys');
    expect(sections.clocks).not.toHaveProperty('webhookSecret');
    expect(sections.clocks).not.toHaveProperty('anthropicApiKey');
  });

  it('cannot be changed at runtime', () => {
    expect(() => {
      (sections.clocks as { staleAfterMs: number }).staleAfterMs = 1;
    }).toThrow(TypeError);
    expect(sections.clocks.staleAfterMs).toBe(config.staleAfterMs);
  });

  it('builds the sections once per config and provides each under its own token', () => {
    expect(sectionsOf(config)).toBe(sections);
    const providers = sectionProviders(config);
    expect(providers.map((provider) => provider.provide)).toEqual(Object.values(SECTION_TOKENS));
    expect(new Set(Object.values(SECTION_TOKENS)).size).toBe(providers.length);
    for (const provider of providers) {
      const name = (Object.keys(SECTION_TOKENS) as (keyof typeof SECTION_TOKENS)[]).find(
        (key) => SECTION_TOKENS[key] === provider.provide,
      )!;
      expect(provider.useValue).toBe(sections[name]);
    }
  });

  describe('settings of several sections', () => {
    const token = Symbol('SOME_SETTINGS');
    const provider = settingsProvider(token, ['staleAfterMs', 'taskMaxSlices', 'anthropicApiKey']);

    it('injects exactly the sections its fields live in', () => {
      expect(provider.provide).toBe(token);
      expect(provider.inject).toEqual([SECTION_TOKENS.clocks, SECTION_TOKENS.limits, SECTION_TOKENS.models]);
    });

    it('holds only the fields it names, frozen', () => {
      const settings = provider.useFactory(sections.clocks, sections.limits, sections.models);
      expect(settings).toEqual({
        staleAfterMs: config.staleAfterMs,
        taskMaxSlices: config.taskMaxSlices,
        anthropicApiKey: 'sk-test',
      });
      expect(Object.isFrozen(settings)).toBe(true);
    });

    it('refuses to build when a section holding one of its fields is missing', () => {
      expect(() => settingsOf(['staleAfterMs', 'taskMaxSlices'], sections.clocks)).toThrow(/taskMaxSlices/);
    });
  });
});
