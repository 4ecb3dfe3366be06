import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { LAB_STACK_EXAMPLE, nextSteps } from "../../lab/next-steps";
import { PLATFORMS } from "../../lab/seed/openshift";

// What `npm run lab -- start` tells a person to do next, and the quick start of docs/lab.md, name a stack file that
// describes the cluster the lab seeds: `pulumi up` with none stops at "has no 'config:' section".
const ROOT = path.resolve(__dirname, "..", "..");

test("the Azure lab names the example stack file, whose cluster is the one the lab seeds", () => {
  const steps = nextSteps("default", "azure");
  expect(steps).toContain(`cp ${LAB_STACK_EXAMPLE.file} Pulumi.lab.yaml`);
  expect(steps).toContain("pulumi login && pulumi stack init lab && pulumi up");
  expect(steps).toMatch(/Stop it with: npm run lab -- stop$/);
  const config = (parse(fs.readFileSync(path.join(ROOT, LAB_STACK_EXAMPLE.file), "utf8")) as { config: never })
    .config as Record<string, Record<string, string>>;
  const seed = PLATFORMS[LAB_STACK_EXAMPLE.platform];
  expect(config["windows-estate:cluster"]).toMatchObject({
    platform: seed.type,
    infrastructureId: seed.infrastructureName,
    region: seed.region,
  });
  expect(config["windows-estate:privateKeyPath"]).toBe("~/.ssh/wmco");
});

test("another platform, or another infrastructure name, is told to write its own stack file, named by its cluster", () => {
  const aws = nextSteps("default", "aws");
  expect(aws).toContain(`the AWS cluster ${PLATFORMS.aws.infrastructureName}`);
  expect(aws).not.toContain("cp ");
  expect(aws).toContain("write its stack file Pulumi.lab.yaml");
  const renamed = nextSteps("default", "azure", "other-x1y2z");
  expect(renamed).toContain("the Azure cluster other-x1y2z");
  expect(renamed).not.toContain("cp ");
  expect(nextSteps("default", "none")).toContain("a kubeadm cluster");
});

test("a named lab is stopped by its name", () => {
  expect(nextSteps("second", "azure")).toMatch(/Stop it with: npm run lab -- stop --name second$/);
});

test("docs/lab.md's quick start starts the Azure lab and copies the same stack file", () => {
  const doc = fs.readFileSync(path.join(ROOT, "docs", "lab.md"), "utf8");
  const quick = doc.slice(doc.indexOf("## Quick start"), doc.indexOf("\n## ", doc.indexOf("## Quick start") + 1));
  expect(quick).toContain(`npm run lab -- start --platform ${LAB_STACK_EXAMPLE.platform}`);
  expect(quick).toContain(`cp ${LAB_STACK_EXAMPLE.file} Pulumi.lab.yaml`);
  expect(quick).toContain("pulumi login && pulumi stack init lab && pulumi up");
});
