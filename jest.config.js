/** Unit, golden and end-to-end suites; tsc --noEmit type-checks separately (npm run typecheck). */
module.exports = {
  testEnvironment: 'node',
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
