/** Removes the state directory test/global-setup.js made. */
const { rmSync } = require('node:fs');
const { tmpdir } = require('node:os');

module.exports = () => {
  const dir = process.env.PACKAGE_VARIANT_STATE_DIR;
  if (dir && dir.startsWith(tmpdir()) && dir.includes('pv-test-state-')) rmSync(dir, { recursive: true, force: true });
};
