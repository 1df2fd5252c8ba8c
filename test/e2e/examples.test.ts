/**
 * The catalog-style examples in examples/<name>/, each run through the real kpt as kpt's e2e
 * runner would (see kpt-harness.ts), with dist/main.js as an exec. Needs kpt on PATH and
 * dist/main.js (npm test builds it). KPT_E2E_UPDATE_EXPECTED=true rewrites the expected files;
 * review them before keeping them.
 */
import { describeExampleCases } from './example-suite';
import { EXEC_RUNNER } from './kpt-harness';
import { describeUnless, kptAbsent } from '../skip-notice';

const describeIfKpt = describeUnless(kptAbsent(), 'the end-to-end examples (test/e2e/examples.test.ts)');

describeExampleCases(describeIfKpt, 'examples/ through kpt (the catalog e2e runner, each case run twice)', EXEC_RUNNER);
