// Runs Public/tests/ot-tests.js under Node 20:
//   node --experimental-default-type=module Tests/browser/ot_node_runner.mjs
// The Selenium suite runs the same tests in Chromium through /tests/ot.html.
import { run } from '../../Public/tests/ot-tests.js';

const result = run();
for (const f of result.failures) console.error(`FAIL ${f.name}: ${f.message}`);
console.log(`${result.passed} passed, ${result.failed} failed`);
process.exit(result.failed === 0 ? 0 : 1);
