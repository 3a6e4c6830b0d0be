/**
 * Import rules of the layout in DEVELOPERS.md, checked by `npm run lint` (dependency-cruiser).
 * A request flows one way: transport -> parse -> ingest or SQL -> storage; imports point the same
 * way (downwards), and no module imports itself back through others (type-only imports count).
 */
const LEAVES = '^src/(td-error|mutex|event-loop|owned-string|logger|worker-thread|node-flags)\\.ts$|^src/config/types\\.ts$'
const WIRING = '^src/(lifecycle|main)\\.ts$'
const notTest = '\\.test\\.ts$|\\.case\\.ts$'

/** `name` may not import `to` (production code; tests may reach across to set things up) */
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from: { path: from, pathNot: notTest }, to: { path: to } })

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import cycle (type-only imports included) means a contract lives in the wrong file',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    forbid('leaves-import-nothing', 'leaf modules are shared by every layer and import none of them', LEAVES, '^src/(?!config/types\\.ts$)[^/]+/|^src/(?!(td-error|mutex|event-loop|owned-string|logger|worker-thread|node-flags)\\.ts$)[^/]+\\.ts$'),
    forbid('storage-is-the-bottom', 'storage/ knows engines only: no SQL, ingest, transport or monitor', '^src/storage/', `^src/(sql|ingest|rest|http|monitor|receivers|manager)/|${WIRING}`),
    forbid('catalog-below-sql', 'the catalog sits between storage and the SQL and ingest layers', '^src/sql/catalog/', `^src/sql/(?!catalog/|time\\.ts$)|^src/(ingest|rest|http|monitor|receivers|manager)/|${WIRING}`),
    forbid('sql-below-transport', 'the SQL layer is called by transports, never calls them', '^src/sql/', `^src/(ingest|rest|http|monitor|receivers|manager)/|${WIRING}`),
    forbid('ingest-below-transport', 'wire formats and the schemaless core are fed by HTTP and the receivers alike', '^src/ingest/', `^src/(rest|http|monitor|receivers|manager)/|${WIRING}`),
    forbid('monitor-below-http', 'the monitor is mounted by the HTTP shell and the lifecycle', '^src/monitor/', `^src/(rest|http|receivers|manager)/|${WIRING}`),
    forbid('http-below-routes', 'the HTTP shell and its middleware (auth, bodies, the error table) know no route module', '^src/http/', `^src/(rest|receivers|manager)/|${WIRING}`),
    {
      ...forbid('transports-side-by-side', 'REST routes, receivers and the management server do not import one another', '^src/(rest|receivers|manager)/', `^src/(rest|receivers|manager)/|${WIRING}`),
      to: { path: `^src/(rest|receivers|manager)/|${WIRING}`, pathNot: '^src/$1/' },
    },
    forbid('config-is-its-own', 'configuration is read by everyone and reads no other layer', '^src/config/', '^src/(?!config/)[^/]+/'),
    forbid('src-not-test', 'production code never imports tests, fixtures or benchmarks', '^src/', '^(test|bench)/|\\.test\\.ts$'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
}
