/**
 * The cloud SDKs are optional peer dependencies (package.json `peerDependenciesMeta`): `@pulumi/aws` and
 * `@pulumi/azure-native` weigh 220 MB together and only stacks that create VMs on that cloud need them. This module
 * loads each cloud's host module (aws-host.ts, azure-host.ts) only when a host of that cloud is declared, and says
 * which package to install when it is missing; the config check (validate.ts `cloudSdkIssues`) says it first, naming
 * the key, before anything is declared.
 */
import * as fs from "fs";
import * as path from "path";
import { projectRoot } from "../../lib/project";

/** Each cloud's SDK package. */
export const CLOUD_SDK = { aws: "@pulumi/aws", azure: "@pulumi/azure-native" } as const;
export type Cloud = keyof typeof CLOUD_SDK;

/** The version of each SDK this program is built and tested with: its peer dependency range in package.json. */
export function sdkVersion(cloud: Cloud): string {
  const pkg: unknown = JSON.parse(fs.readFileSync(path.join(projectRoot(__dirname), "package.json"), "utf8"));
  const peers = typeof pkg === "object" && pkg !== null && "peerDependencies" in pkg ? pkg.peerDependencies : undefined;
  const v = typeof peers === "object" && peers !== null ? Object.entries(peers) : [];
  return String(v.find(([name]) => name === CLOUD_SDK[cloud])?.[1] ?? "");
}

/** Whether the SDK package resolves from here. */
export function sdkInstalled(cloud: Cloud): boolean {
  try {
    // layers-allow: a cloud SDK package (CLOUD_SDK), not a module of ours.
    require.resolve(`${CLOUD_SDK[cloud]}/package.json`);
    return true;
  } catch {
    return false;
  }
}

/** The command that installs a missing SDK, at the version this program is tested with. */
export function installCommand(cloud: Cloud, version: string): string {
  return `npm install ${CLOUD_SDK[cloud]}${version ? `@${version}` : ""}`;
}

type Modules = { aws: typeof import("./aws-host"); azure: typeof import("./azure-host") };

/** The host module of a cloud, loading its SDK; a missing SDK is one line naming the package and the command. */
export function cloudSdk<C extends Cloud>(cloud: C): Modules[C] {
  if (!sdkInstalled(cloud))
    throw new Error(
      `creating hosts on ${cloud === "aws" ? "AWS" : "Azure"} needs the npm package ${CLOUD_SDK[cloud]}, which is not installed: run \`${installCommand(cloud, sdkVersion(cloud))}\``,
    );
  const modules: Modules = {
    get aws() {
      const m: typeof import("./aws-host") = require("./aws-host");
      return m;
    },
    get azure() {
      const m: typeof import("./azure-host") = require("./azure-host");
      return m;
    },
  };
  return modules[cloud];
}
