/** Unit, golden and end-to-end suites; tsc --noEmit type-checks separately (npm run typecheck). */
module.exports = {
  testEnvironment: 'node',
  // Most suites wait on git, kpt and Go processes: two workers keep both cores busy (jest's default on
  // two cores is one).
  maxWorkers: 2,
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  transform: {
    '^.+\\.[tj]s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // @marcbachmann/cel-js ships ESM only; Node 20's jest cannot require it untransformed.
  transformIgnorePatterns: ['/node_modules/(?!@marcbachmann/cel-js)'],
};
