import {
  awsZoneIssues,
  azureAdminUsernameIssues,
  azurePasswordIssues,
  azureZoneIssues,
  regionIssues,
} from "../../../components/provisioning/cloud-rules";
import { cloudSdkIssues } from "../../../components/provisioning/validate-clouds";
import { ipv4Pools } from "../../../components/provisioning/azure-host";
import { ConfigErrors } from "../../../stacks/load";
import { UNDECRYPTED_SECRET } from "../../../stacks/offline";
import { loadScratchStack, scratch } from "../../helpers/stack";
import * as fs from "fs";
import * as path from "path";
import { CLOUD_SDK, installCommand, sdkInstalled, sdkVersion } from "../../../components/provisioning/cloud-sdk";
import { PROJECT_DIR } from "../../../scripts/synth/main";

// Audit row 11 and issue 41 item 4: what Azure and AWS would refuse at `up` is refused offline, naming the key.
// Expected values are the clouds' own words: the Azure Compute REST API's OSProfile (as @pulumi/azure-native 3.28.0
// compute.OSProfileArgs carries it), AWS "AWS Availability Zones".

describe("Azure admin user name (OSProfile.adminUsername)", () => {
  test.each(["administrator", "Administrator", "admin", "user1", "guest", "support_388945a0"])(
    "%s is one of Azure's disallowed values (compared without case, as Windows names are)",
    (name) => {
      expect(azureAdminUsernameIssues(name, "byoh[0].azure.adminUsername")).toEqual([
        {
          path: "byoh[0].azure.adminUsername",
          message: expect.stringContaining(`${JSON.stringify(name)} is a name Azure reserves for Windows VMs`),
        },
      ]);
    },
  );
  test("Max-length (Windows): 20 characters; Windows-only restriction: cannot end in '.'", () => {
    expect(azureAdminUsernameIssues("a".repeat(20), "p")).toEqual([]);
    expect(azureAdminUsernameIssues("a".repeat(21), "p")[0].message).toContain(
      "is 21 characters, Azure takes at most 20",
    );
    expect(azureAdminUsernameIssues("ops.", "p")[0].message).toContain('ends in ".", which Azure refuses on Windows');
  });
  test("the default and ordinary names pass", () => {
    for (const ok of ["capi", "winadmin", "ops-admin"]) expect(azureAdminUsernameIssues(ok, "p")).toEqual([]);
  });
});

describe("Azure admin password (OSProfile.adminPassword)", () => {
  const at = "byoh[0].azure.adminPasswordSecret";
  test("Minimum-length (Windows) 8, Max-length (Windows) 123", () => {
    expect(azurePasswordIssues("Ab1!xyz", at, "pw")[0].message).toContain("has 7 characters, Azure wants 8 to 123");
    expect(azurePasswordIssues("Ab1!xyzw", at, "pw")).toEqual([]);
    expect(azurePasswordIssues("Ab1!" + "x".repeat(120), at, "pw")[0].message).toContain("has 124 characters");
  });
  test("3 of 4: lower, upper, digit, special ([\\W_]); two classes are not enough", () => {
    expect(azurePasswordIssues("abcdefgh12", at, "pw")[0].message).toContain(
      "it lacks an upper-case letter and a special character",
    );
    // Three classes pass, whichever three.
    for (const ok of ["abcdEFGH12", "abcdefg_12", "ABCDEFG_12", "abcdEFGH!_"])
      expect(azurePasswordIssues(ok, at, "pw")).toEqual([]);
  });
  test("Azure's disallowed values are refused although they meet the other rules", () => {
    for (const weak of ["P@ssw0rd", "Password1", "iloveyou!"])
      expect(azurePasswordIssues(weak, at, "pw")[0].message).toContain(
        "is one of the passwords Azure refuses as known",
      );
  });
  test("the message names the secret config key and never holds the password", () => {
    const [issue] = azurePasswordIssues("short1A", at, "byohAdminPassword");
    expect(issue.message).toContain("pulumi config set --secret windows-estate:byohAdminPassword <password>");
    expect(issue.message).not.toContain("short1A");
  });
});

describe("regions and zones against each cloud's table", () => {
  test("a known region or location passes; Azure display names are taken as Azure takes them", () => {
    expect(regionIssues("aws", "us-east-2", "cluster.region")).toEqual({ errors: [], warnings: [] });
    expect(regionIssues("azure", "westeurope", "cluster.region")).toEqual({ errors: [], warnings: [] });
    expect(regionIssues("azure", "West Europe", "cluster.region")).toEqual({ errors: [], warnings: [] });
  });
  test("a made-up one is a warning with did you mean and how to proceed, never silence", () => {
    const aws = regionIssues("aws", "us-east-9", "cluster.region");
    expect(aws.errors).toEqual([]);
    expect(aws.warnings).toEqual([
      {
        path: "cluster.region",
        message: expect.stringMatching(
          /^"us-east-9" is not an AWS region this program knows; did you mean us-east-1\? if it is one AWS opened since .*go ahead/,
        ),
      },
    ]);
    const azure = regionIssues("azure", "westeuropa", "byoh[0].azure.location");
    expect(azure.warnings[0].message).toMatch(/did you mean westeurope\?/);
  });
  test("an AWS region that cannot be a region code is an error", () => {
    expect(regionIssues("aws", "Ohio", "cluster.region").errors[0].message).toContain(
      '"Ohio" is not an AWS region code (like us-east-2)',
    );
  });
  test("an Availability Zone is its region's code and a letter, or a Local Zone of it", () => {
    expect(awsZoneIssues("us-east-2a", "us-east-2", "z")).toEqual([]);
    expect(awsZoneIssues("us-west-2-lax-1a", "us-west-2", "z")).toEqual([]);
    expect(awsZoneIssues("us-east-1a", "us-east-2", "machineSets[0].aws.availabilityZone")).toEqual([
      {
        path: "machineSets[0].aws.availabilityZone",
        message: expect.stringContaining('"us-east-1a" is not an Availability Zone of us-east-2'),
      },
    ]);
    // Without a region there is nothing to compare with (discovery fills it at preview).
    expect(awsZoneIssues("us-east-1a", undefined, "z")).toEqual([]);
  });
  test("Azure zones are 1, 2, 3 or none", () => {
    for (const z of ["", "1", "2", "3"]) expect(azureZoneIssues(z, "z")).toEqual([]);
    expect(azureZoneIssues("westeurope-1", "z")[0].message).toContain('use "1", "2", "3", or "" for none');
  });
});

test("a stack creating VMs on a cloud whose SDK is not installed is told which package and command, once per cloud", () => {
  const entries = [
    { entry: { aws: {} as never }, at: (...p: string[]) => ["byoh[0]", ...p].join(".") },
    { entry: { aws: {} as never }, at: (...p: string[]) => ["byoh[1]", ...p].join(".") },
    { entry: { azure: {} as never }, at: (...p: string[]) => ["nodes[0]", ...p].join(".") },
  ];
  expect(
    cloudSdkIssues(
      entries,
      (c) => c === "azure",
      () => "7.48.0",
    ),
  ).toEqual([
    {
      path: "byoh[0].aws",
      message: expect.stringContaining(
        "needs the npm package @pulumi/aws (an optional peer dependency, not installed): run `npm install @pulumi/aws@7.48.0`",
      ),
    },
  ]);
  expect(
    cloudSdkIssues(
      entries,
      () => true,
      () => "",
    ),
  ).toEqual([]);
});

// machine-api-provider-azure pkg/cloud/azure/services/networkinterfaces/networkinterfaces.go: a Machine's NIC joins
// every backend pool of its publicLoadBalancer, the pools named "-v6" going to the IPv6 configuration.
test("the NIC joins the load balancer's IPv4 backend pools, as machine-api's Azure actuator joins a Machine's", () => {
  const id = (n: string) =>
    `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb/backendAddressPools/${n}`;
  expect(
    ipv4Pools([
      { id: id("ocp-az-4m8wd"), name: "ocp-az-4m8wd" },
      { id: id("ocp-az-4m8wd-v6"), name: "ocp-az-4m8wd-v6" },
      { name: "no-id" },
    ]),
  ).toEqual([{ id: id("ocp-az-4m8wd") }]);
  expect(ipv4Pools(undefined)).toEqual([]);
});

describe("the admin password is checked where Pulumi hands it decrypted (preview, up), never printed", () => {
  const s = scratch();
  afterAll(() => s.cleanup());
  const load = (password: string) => () =>
    loadScratchStack(
      s,
      {
        cluster: { platform: "Azure", infrastructureId: "ocp-az-4m8wd", region: "westeurope" },
        byohAdminPassword: password,
        byoh: [
          {
            name: "winbyoh-az",
            azure: { subscriptionId: "00000000-1111-2222-3333-444444444444", adminPasswordSecret: "byohAdminPassword" },
          },
        ],
      },
      { secrets: ["byohAdminPassword"] },
    );
  test("a weak one stops the load, naming the key, without its text", () => {
    expect(load("password1")).toThrow(ConfigErrors);
    expect(load("password1")).toThrow(
      /windows-estate:byoh\[0\]\.azure\.adminPasswordSecret: the password in windows-estate:byohAdminPassword needs three of/,
    );
    expect(load("password1")).not.toThrow(/password1/);
  });
  test("a good one, and one synth could not decrypt, load", () => {
    expect(load("an-Azure-admin-password-0123")).not.toThrow();
    expect(load(UNDECRYPTED_SECRET)).not.toThrow();
  });
});

// Issue 41 item 6: @pulumi/aws and @pulumi/azure-native (220 MB together) are optional peer dependencies, installed
// by the stacks and programs that create VMs on that cloud; this repository installs them as dev dependencies.
test("the cloud SDKs are optional peers at the versions the tests run with, and the install command names that version", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_DIR, "package.json"), "utf8"));
  for (const cloud of ["aws", "azure"] as const) {
    const name = CLOUD_SDK[cloud];
    expect(pkg.dependencies[name]).toBeUndefined();
    expect(pkg.peerDependenciesMeta[name]).toEqual({ optional: true });
    const installed = JSON.parse(fs.readFileSync(require.resolve(`${name}/package.json`), "utf8")).version;
    expect(pkg.peerDependencies[name]).toBe(installed);
    expect(pkg.devDependencies[name]).toBe(installed);
    expect(sdkVersion(cloud)).toBe(installed);
    expect(installCommand(cloud, sdkVersion(cloud))).toBe(`npm install ${name}@${installed}`);
    expect(sdkInstalled(cloud)).toBe(true);
  }
});
