// The unit tests' few shared tools: a deep equality check and a list of tests to run. Node
// imports this file as it is; test_units.py hands it to Chromium's page as a blob module.

/** Throws unless `actual` and `expected` are the same as JSON. */
export function eq(actual, expected, message = '') {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message} expected ${e}, got ${a}`);
}

/**
 * A list of tests: `test(name, fn)` adds one; `run()` runs every one and returns
 * {passed, failed, failures: [{name, message}]}.
 */
export function suite() {
  const tests = [];
  return {
    tests,
    test: (name, fn) => tests.push({ name, fn }),
    run() {
      const failures = [];
      for (const t of tests) {
        try { t.fn(); } catch (e) { failures.push({ name: t.name, message: String(e && e.message || e) }); }
      }
      return { passed: tests.length - failures.length, failed: failures.length, failures };
    },
  };
}
