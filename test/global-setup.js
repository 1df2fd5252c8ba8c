/**
 * Every test run gets a state directory of its own (journal-seal.ts keeps the user's key there), so
 * that tests never write to the home directory of the machine that runs them.
 */
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

module.exports = () => {
  if (!process.env.PACKAGE_VARIANT_STATE_DIR) process.env.PACKAGE_VARIANT_STATE_DIR = mkdtempSync(join(tmpdir(), 'pv-test-state-'));
};
