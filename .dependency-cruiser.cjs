/**
 * Dependency rules of docs/architecture.md, enforced by `npm test` (npm run deps).
 * Layers: cli -> client -> (api, core); http -> (api, core); core -> (its own modules, api);
 * adapters -> (core ports/model and pure rules, api); api -> api only. No cycles anywhere.
 */
const drivers = '^(better-sqlite3|fastify|@fastify/.*|undici|commander|ora|cli-table3|sharp|@techstark/opencv-js|csv-parse|pg|@aws-sdk/.*)$';
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import cycle anywhere under src/.', from: { path: '^src/' }, to: { circular: true } },
    {
      name: 'core-is-pure', severity: 'error',
      comment: 'src/core depends on its ports and src/api only: no outer layer, no composition root.',
      from: { path: '^src/core/' }, to: { path: '^src/(adapters|http|cli|client)/|^src/open-catalog' },
    },
    {
      name: 'core-no-drivers', severity: 'error',
      comment: 'src/core never imports a driver, a framework, node:fs or node:http: adapters do.',
      from: { path: '^src/core/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], path: 'node_modules/' + drivers.slice(1, -1) },
    },
    {
      name: 'core-no-io-builtins', severity: 'error',
      comment: 'src/core does no file or network I/O of its own.',
      from: { path: '^src/core/', pathNot: '\\.test\\.ts$' }, to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|http|https|net|http2|child_process)$' },
    },
    {
      name: 'model-is-a-leaf', severity: 'error',
      comment: 'core/model.ts is plain types: it imports nothing of ours but the wire types of src/api.',
      from: { path: '^src/core/model\\.ts$' }, to: { path: '^src/', pathNot: '^src/api/' },
    },
    {
      name: 'ports-import-only-contracts', severity: 'error',
      comment: 'core/ports.ts imports only core/model.ts and src/api.',
      from: { path: '^src/core/ports\\.ts$' }, to: { path: '^src/', pathNot: '^src/(api/|core/model\\.ts$)' },
    },
    {
      name: 'api-is-a-leaf', severity: 'error',
      comment: 'src/api (the wire contract) imports only src/api.',
      from: { path: '^src/api/' }, to: { path: '^src/', pathNot: '^src/api/' },
    },
    {
      name: 'adapters-not-outer', severity: 'error',
      comment: 'Adapters implement ports: they import no http, cli or client code.',
      from: { path: '^src/adapters/' }, to: { path: '^src/(http|cli|client)/' },
    },
    {
      name: 'http-not-cli', severity: 'error',
      comment: 'The HTTP server knows nothing of the CLI or the clients.',
      from: { path: '^src/http/' }, to: { path: '^src/(cli|client)/' },
    },
    {
      name: 'client-not-cli-or-http', severity: 'error',
      comment: 'The clients know nothing of the CLI or the HTTP server.',
      from: { path: '^src/client/' }, to: { path: '^src/(cli|http)/' },
    },
    {
      name: 'no-tests-from-src', severity: 'error',
      comment: 'Production code never imports test code.',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' }, to: { path: '^test/|\\.test\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.json'] },
  },
};
