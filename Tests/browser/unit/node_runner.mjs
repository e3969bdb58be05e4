// Runs the unit tests under Node 20.10 or later, outside the browser suite:
//   node --experimental-default-type=module Tests/browser/unit/node_runner.mjs
// The browser suite runs the same files in headless Chromium (test_units.py).
import * as otTests from './ot-tests.js';
import * as collabTests from './collab-state-tests.js';
import * as undoNoticeTests from './undo-notices-tests.js';
import * as linkTests from './links-tests.js';
import * as savedStateTests from './saved-state-tests.js';
import * as accessRulesTests from './access-rules-tests.js';
import * as peopleListsTests from './people-lists-tests.js';
import * as pasteboardPeopleTests from './pasteboard-people-tests.js';
import * as whoWroteWhatTests from './who-wrote-what-tests.js';
import * as versionListTests from './version-list-tests.js';

let failed = 0;
for (const [name, suite] of [['ot', otTests], ['collab-state', collabTests], ['undo-notices', undoNoticeTests], ['links', linkTests], ['saved-state', savedStateTests], ['access-rules', accessRulesTests], ['people-lists', peopleListsTests], ['pasteboard-people', pasteboardPeopleTests], ['who-wrote-what', whoWroteWhatTests], ['version-list', versionListTests]]) {
  const result = suite.run();
  for (const f of result.failures) console.error(`FAIL ${name}: ${f.name}: ${f.message}`);
  console.log(`${name}: ${result.passed} passed, ${result.failed} failed`);
  failed += result.failed;
}
process.exit(failed === 0 ? 0 : 1);
