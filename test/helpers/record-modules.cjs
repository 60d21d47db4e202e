// Preloaded with `node --require` by test/e2e/start-up-modules.test.ts: at exit, writes the files
// of every CommonJS module the process loaded (require() and import() of a CommonJS package alike)
// to the JSON file named by CATALOG_TEST_MODULES_OUT.
const { writeFileSync } = require('node:fs');

process.once('exit', () => {
  writeFileSync(process.env.CATALOG_TEST_MODULES_OUT, JSON.stringify(Object.keys(require.cache)));
});
