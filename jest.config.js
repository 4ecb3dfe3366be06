/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    // isolatedModules: type-checking is `npm run build`'s job; per-file transpiling keeps the suite fast on 2 cores.
    "^.+\\.ts$": ["ts-jest", { diagnostics: false }],
  },
  testTimeout: 60000,
  // The SSH lab's sshd must exist before any test runs: installed when possible, otherwise a clear stop.
  globalSetup: "<rootDir>/test/lab/global-setup.ts",
  maxWorkers: 2,
};
