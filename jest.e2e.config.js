/**
 * The real-pieces suite (`npm run test:e2e`): the Pulumi CLI, pulumi-resource-kubernetes and a Kubernetes API
 * server built from their Go modules (`npm run lab -- build`), driven as a user drives them. Needs Go; `npm test`
 * does not.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test/e2e"],
  testMatch: ["**/*.e2e.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { diagnostics: false }] },
  testTimeout: 300000,
  globalSetup: "<rootDir>/test/e2e/global-setup.ts",
  globalTeardown: "<rootDir>/test/e2e/global-teardown.ts",
  // Each suite starts its own lab (etcd, API server, controller manager, OLM, machine-api, players) under its own name,
  // on free ports: two side by side, which keeps CI inside its limit on 2 cores (docs/lab.md, "Figures").
  maxWorkers: 2,
};
