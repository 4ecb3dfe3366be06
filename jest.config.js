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
  // Not a leak: each test file's module registry (Pulumi, the Kubernetes client, the AWS SDK, the tree-sitter wasm)
  // becomes garbage that V8 collects lazily, so a worker that ran 30 files held a 1 GB heap and 3 GB resident, and
  // tearing down a process that size on 2 busy cores takes longer than the 500 ms jest waits ("A worker process has
  // failed to exit gracefully"). Recycling a worker once its heap passes 256 MB after a file (8 restarts in a full
  // run) keeps them small, and the suite used less CPU for it (412 s against 477 s).
  workerIdleMemoryLimit: "256MB",
};
