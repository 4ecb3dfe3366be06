import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import {
  CpuProfile,
  packageOf,
  summariseCliProfiles,
  summariseProfiles,
  topFunctions,
  topPackages,
} from "../../bench/cpu-profile";

const frame = (id: number, functionName: string, url: string, lineNumber = 0) => ({
  id,
  callFrame: { functionName, url, lineNumber },
});

/** Node 1 sampled 3 times (1, 2, 3 ms), node 2 once (10 ms), node 3 twice (0.5 ms each). */
const profile: CpuProfile = {
  nodes: [
    frame(1, "serialize", "file:///p/node_modules/@pulumi/pulumi/runtime/rpc.js", 41),
    frame(2, "", ""),
    frame(3, "declare", "file:///p/components/byoh/index.ts", 9),
  ],
  samples: [1, 2, 1, 3, 1, 3],
  timeDeltas: [1000, 10000, 2000, 500, 3000, 500],
};

describe("CPU profile summaries", () => {
  it("sums self time per function, largest first", () => {
    expect(topFunctions(profile)).toEqual([
      ["(anonymous) (native:1)", 10],
      ["serialize (@pulumi/pulumi/runtime/rpc.js:42)", 6],
      ["declare (file:///p/components/byoh/index.ts:10)", 1],
    ]);
    expect(topFunctions(profile, 1)).toHaveLength(1);
  });

  it("sums self time per package", () => {
    expect(topPackages(profile)).toEqual([
      ["(V8: GC, idle, native)", 10],
      ["@pulumi/pulumi", 6],
      ["(project)", 1],
    ]);
    expect(packageOf("node:internal/streams/readable")).toBe("node");
    expect(packageOf("/p/node_modules/google-protobuf/google-protobuf.js")).toBe("google-protobuf");
  });

  it("summarises every profile under a folder, and nothing when there is none", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cpu-prof-"));
    fs.mkdirSync(path.join(dir, "20-ours"));
    fs.writeFileSync(path.join(dir, "20-ours", "CPU.1.cpuprofile"), JSON.stringify(profile));
    const lines = summariseProfiles(dir);
    expect(lines[0]).toBe("20-ours/CPU.1.cpuprofile: 17 ms sampled");
    expect(lines[1]).toBe("  by package: (V8: GC, idle, native) 10, @pulumi/pulumi 6, (project) 1");
    expect(lines).toHaveLength(2 + 3);
    expect(summariseProfiles(path.join(dir, "none"))).toEqual([]);
  });

  it("names a CLI profile it could not read and how to read it, rather than failing the benchmark", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-prof-"));
    fs.mkdirSync(path.join(dir, "20-ours"));
    const file = path.join(dir, "20-ours", "cli-up.42.cpu");
    // Not a pprof profile: `go tool pprof` refuses it where Go is installed, and without Go nothing reads it.
    fs.writeFileSync(file, "not a profile");
    expect(summariseCliProfiles(dir)).toEqual([
      `20-ours/cli-up.42.cpu: not summarised (\`go tool pprof\` did not run); read it with go tool pprof -top ${file}`,
    ]);
    expect(summariseCliProfiles(path.join(dir, "none"))).toEqual([]);
  });
});
