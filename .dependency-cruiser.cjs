// The layers of src/ and machines/, held by `npm run lint` (depcruise). A folder imports only
// the folders listed after it (docs/architecture.md, Layers, has the same table); type-only
// imports count as imports.
//
//   src/index.ts, src/cli, src/testing   the edges: any layer below, and a store (redis/, memory/)
//   src/http                             triggers, dashboard, metrics, chart, webhooks, client, pipeline, tracing, runtime, store
//   src/triggers                         webhooks, client, runtime, store
//   src/dashboard                        chart, client, pipeline, tracing, runtime, store
//   src/metrics                          webhooks, runtime, store
//   src/supervisor                       webhooks, client, tracing, runtime, store
//   src/webhooks                         client, runtime, store
//   src/chart                            pipeline, runtime, store
//   src/client                           pipeline, tracing, runtime, store
//   src/pipeline                         runtime, store
//   src/tracing                          runtime, store
//   src/runtime                          store
//   src/store                            itself (store/redis and store/memory never import each other)
//   machines/job.ts                      src/errors.ts
//   src/errors.ts                        src/errors/ (the error classes, a file per concern), src/errorCodes.ts
//   src/errors/                          itself, src/errorCodes.ts (the registry of codes), which imports nothing
//
// Everything may import src/errors.ts, src/errorCodes.ts and machines/job.ts (the lifecycle: the one thing src/
// takes from machines/); the classes of src/errors/ only through src/errors.ts. src/ imports no
// demo pipeline (machines/ but job.ts) and nothing of examples/: `machinist dev` loads
// machines/demo.ts by path, as `worker --jobs` loads a user's module. The two stores do not import each other, and only the edges (cli, testing, index)
// pick a store: every layer between works on the Store interface. No import cycle at all.

/** The layers each folder of src/ may import, besides itself, src/errors.ts and machines/job.ts. */
const BELOW = {
  store: [],
  runtime: ['store'],
  tracing: ['runtime', 'store'],
  pipeline: ['runtime', 'store'],
  client: ['pipeline', 'tracing', 'runtime', 'store'],
  chart: ['pipeline', 'runtime', 'store'],
  webhooks: ['client', 'runtime', 'store'],
  supervisor: ['webhooks', 'client', 'tracing', 'runtime', 'store'],
  metrics: ['webhooks', 'runtime', 'store'],
  dashboard: ['chart', 'client', 'pipeline', 'tracing', 'runtime', 'store'],
  triggers: ['webhooks', 'client', 'runtime', 'store'],
  http: [
    'triggers',
    'dashboard',
    'metrics',
    'chart',
    'webhooks',
    'client',
    'pipeline',
    'tracing',
    'runtime',
    'store',
  ],
};

/** Everything of src/ and machines/ but the folder itself, what is below it, errors and job.ts. */
const notBelow = (folder) =>
  `^(src/|machines/)(?!(?:${[folder, ...BELOW[folder]].join('|')})/|errors\\.ts$|errorCodes\\.ts$|job\\.ts$)`;

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No import cycle, type-only imports included: each file sits above what it imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...Object.keys(BELOW).map((folder) => ({
      name: `layer-${folder}`,
      comment: `src/${folder} imports only ${BELOW[folder].map((f) => `src/${f}`).join(', ') || 'itself'}, src/errors.ts and machines/job.ts (see the diagram above).`,
      severity: 'error',
      from: { path: `^src/${folder}/` },
      to: { path: notBelow(folder) },
    })),
    {
      name: 'errors-is-the-bottom',
      comment:
        'src/errors.ts and its classes in src/errors/ import nothing of the project but each other and the registry of codes, which imports nothing.',
      severity: 'error',
      from: { path: '^src/(errors\\.ts$|errorCodes\\.ts$|errors/)' },
      to: { path: '^(src|machines|examples)/', pathNot: '^src/(errorCodes\\.ts$|errors/)' },
    },
    {
      name: 'errors-through-errors-ts',
      comment: 'The error classes are imported through src/errors.ts, the one door to src/errors/.',
      severity: 'error',
      from: { path: '^(src|machines|examples)/', pathNot: '^src/(errors\\.ts$|errors/)' },
      to: { path: '^src/errors/' },
    },
    {
      name: 'lifecycle-machine-below-src',
      comment: 'machines/job.ts, the lifecycle machine, imports only src/errors.ts.',
      severity: 'error',
      from: { path: '^machines/job\\.ts$' },
      to: { path: '^(src|machines|examples)/', pathNot: '^src/errors\\.ts$' },
    },
    {
      name: 'src-takes-only-the-lifecycle-from-machines',
      comment:
        'src/ imports machines/job.ts and nothing else of machines/ or examples/: demo jobs are loaded by path (machinist dev).',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(machines/|examples/)', pathNot: '^machines/job\\.ts$' },
    },
    {
      name: 'stores-apart',
      comment: 'RedisStore and MemoryStore share code through src/store itself, never each other.',
      severity: 'error',
      from: { path: '^src/store/(redis|memory)/' },
      to: { path: '^src/store/(redis|memory)/', pathNot: '^src/store/$1/' },
    },
    {
      name: 'only-the-edges-pick-a-store',
      comment: 'Between the store and the edges (cli, testing, index.ts), code works on the Store interface.',
      severity: 'error',
      from: {
        path: '^src/(runtime|tracing|pipeline|client|chart|webhooks|supervisor|metrics|dashboard|http)/',
      },
      to: { path: '^src/store/(redis|memory)/' },
    },
    {
      name: 'cli-definitions-load-cheaply',
      comment:
        'main.ts loads every command definition to list them: a definition (and connect.ts) imports the store, the server, the supervisor or a chart renderer inside its action (await import), never at the top; a static one costs every CLI process ~0.5 s of CPU (src/cli/actions/ holds what the commands do).',
      severity: 'error',
      from: { path: '^src/cli/(main\\.ts$|connect\\.ts$|commands/)' },
      to: {
        path: '^src/(store/(redis|memory)/|supervisor/|http/|dashboard/|metrics/|chart/|client/Client\\.ts$|cli/(actions/|runServer\\.ts$))|node_modules/(ioredis|fastify|pino|xstate)/',
        dependencyTypesNot: ['dynamic-import', 'type-only'],
      },
    },
  ],
  options: {
    // The shared node_modules is a symlink: keep its resolved paths out of the graph.
    doNotFollow: {
      path: 'node_modules',
      dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg'],
    },
    exclude: { path: '(^|/)node_modules/|^src/dashboard/(browser|static)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
