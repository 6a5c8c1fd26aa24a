// Layering checker (`npm run check`): which part of Vigil may import which.
// Run: npx depcruise apps libs --config .dependency-cruiser.cjs
// @vigil/<lib> resolves through tsconfig.json's paths; only apps/ and libs/ are cruised (spec files
// included; test/, bench/ and scripts/ are not part of the layering).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'an-app-never-imports-another-app',
      severity: 'error',
      comment:
        'api, worker, watcher and notifier are separate processes that fail, restart and scale on their ' +
        'own. Importing another app loads its module graph into this process (the Watcher would load ' +
        "the Worker's model SDKs, the API the Notifier's consumers). Shared code belongs in libs/.",
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'a-lib-never-imports-an-app',
      severity: 'error',
      comment:
        'Apps are thin shells (modules, controllers, processors, schedulers) on top of libs. A lib that ' +
        'imports an app inverts the layering and drags that process into every app using the lib.',
      from: { path: '^libs/' },
      to: { path: '^apps/', pathNot: '^apps/meta-sandbox/' },
    },
    {
      name: 'only-tests-use-the-graph-api-stand-in',
      severity: 'error',
      comment:
        'apps/meta-sandbox is a stand-in for the Meta Graph API, run as its own process by the demo and ' +
        'tests. Unit specs and libs/testing may start it in-process; production code talks to the real ' +
        'API through libs/meta-graph and must never load the stand-in.',
      from: { path: '^libs/', pathNot: '(\\.spec\\.ts$|^libs/testing/)' },
      to: { path: '^apps/meta-sandbox/' },
    },
    {
      name: 'supervisor-never-loads-the-agent-runtime',
      severity: 'error',
      comment:
        "libs/supervisor is the Watcher's state machine; libs/agent is the Worker's slice runner with the " +
        'model providers. The Watcher process must not load model SDKs: what both need (task record, ' +
        'journal, scripts) lives in libs/tasks.',
      from: { path: '^libs/supervisor/' },
      to: { path: '^libs/agent/' },
    },
    {
      name: 'agent-never-loads-the-supervisor',
      severity: 'error',
      comment:
        'The Worker runs slices; recovery, leases and verification are decided by the Watcher only. The ' +
        'agent runtime reaching into libs/supervisor would let a Worker run recovery logic and load ' +
        "the Watcher's code into every Worker.",
      from: { path: '^libs/agent/' },
      to: { path: '^libs/supervisor/' },
    },
    {
      name: 'kinds-are-plugins-never-the-runtime',
      severity: 'error',
      comment:
        'Task kinds (noop, mission, campaign_build) and the kind SDK they are written with are plugins ' +
        'that the runtime loads: the agent runtime runs their tools, the supervisor runs their exit ' +
        'checks. A kind importing libs/agent or libs/supervisor makes a cycle of layers and ties every ' +
        'kind to one process.',
      from: { path: '^libs/(kinds|builtin-kinds|meta-graph)/' },
      to: { path: '^libs/(agent|supervisor)/' },
    },
    {
      name: 'the-kind-sdk-knows-no-kind',
      severity: 'error',
      comment:
        'libs/kinds is the contract every kind is written against (defineKind, defineTool, the ' +
        'registry, BoundKind); the built-in kinds (libs/builtin-kinds) and the Meta Graph API client ' +
        'one of them uses (libs/meta-graph) are written with it. The SDK importing them would make ' +
        'the contract depend on one implementation, and every operator kind load Meta.',
      from: { path: '^libs/kinds/' },
      to: { path: '^libs/(builtin-kinds|meta-graph)/' },
    },
    {
      name: 'notify-never-imports-control',
      severity: 'error',
      comment:
        'libs/notify tells the user what happened, worded only from the task record and events; ' +
        'libs/control is what a user can ask (create, stop, pause, resume, input). Notifications ' +
        'must never issue commands, and the Notifier process must not load the command side.',
      from: { path: '^libs/notify/' },
      to: { path: '^libs/control/' },
    },
    {
      name: 'production-code-never-imports-testing',
      severity: 'error',
      comment:
        'libs/testing holds the fakes, fixtures and harnesses of the tests and imports the domain libs ' +
        'to build them; a domain lib or app importing it back makes a cycle and ships test code. Only ' +
        'a unit spec beside the code may use it (int and e2e specs live under test/).',
      from: { path: '^(apps/[^/]+|libs/(?!testing/)[^/]+)/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^libs/testing/' },
    },
    {
      name: 'telemetry-is-a-leaf',
      comment:
        'libs/telemetry (the Tracing interface, derived trace ids, the OpenTelemetry SDK) is imported ' +
        'by every layer, from the Watcher to the tools. Importing any other Vigil library back would ' +
        'make cycles and pull that library into processes that only wanted to trace; what it needs ' +
        '(the secret scrubber, its settings) is handed to createTracing by libs/platform.',
      severity: 'error',
      from: { path: '^libs/telemetry/' },
      to: { path: '^(libs|apps)/', pathNot: '^libs/telemetry/' },
    },
    {
      name: 'the-client-knows-only-the-http-api',
      severity: 'error',
      comment:
        'libs/client is what a program outside Vigil uses to talk to it (the CLI, the demos, a user): ' +
        'its types come from the served OpenAPI document, never from the domain libraries, so it ' +
        'loads no Nest, Redis or model SDK and cannot drift into depending on internals.',
      from: { path: '^libs/client/' },
      to: { path: '^(libs|apps)/', pathNot: '^libs/client/' },
    },
    {
      name: 'no-circular-imports',
      severity: 'error',
      comment:
        'A cycle makes module load order decide what is undefined at import time (Nest providers and ' +
        'decorator metadata among them) and makes the layers above meaningless. Replaces madge --circular.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // Cruise only apps/ and libs/; node_modules is recorded but never followed.
    includeOnly: '^(apps|libs)/',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|\\.dist-[^/]*|node_modules|coverage)/' },
    // Type-only imports count: a layering rule is about what a module knows, not only what it loads.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
