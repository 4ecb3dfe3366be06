import { parseArgs } from "util";
import { startApiserver, stopApiserver } from "./apiserver";
import { build } from "./build";
import { PROGRAMS } from "./programs";
import { LabError } from "./errors";
import { nextSteps } from "./next-steps";
import { allRecords, readRecord, running } from "./record";
import { LabPlatform, PLAYER_NAMES, PlayerName, start } from "./start";
import { OPENSHIFT_VERSION } from "./seed/openshift";
import { stop } from "./stop";

const HELP = `npm run lab -- <command> [options]

The real Pulumi CLI, pulumi-resource-kubernetes and a Kubernetes API server, built from their Go modules and run on
127.0.0.1, with the real OLM on OpenShift, and WMCO, the machine controller and the kubelets played (docs/lab.md).

Commands:
  build                 build every program into the cache (outside the repository); cached ones are kept
  start                 start a lab and print how to use it
  stop                  stop a lab: end what start started and remove its folder
  status                print a running lab's JSON line (as start --json printed it)
  apiserver stop|start  stop a running lab's API server (the rest stays up), or start it again as it was: a fault
                        for tests

Options:
  --platform P          start: aws | azure | gcp | vsphere | nutanix (OpenShift ${OPENSHIFT_VERSION} there) | none (kubeadm); default aws
  --json                start: print one JSON line {kubeconfig, apiserver, version, pulumi, env}
  --name N              start/stop/status: which lab (several can run side by side); default "default"
  --apiserver-port N    start: listen on this port instead of a free one
  --infrastructure-name start: Infrastructure status.infrastructureName (default: the example stack's)
  --no-players          start: the seeded cluster (and OLM, machine-api) only, nothing plays WMCO/actuators/kubelets
  --players a,b         start: only these players (wmco, machine-actuator, kubelet, linux-nodes)
  --node-status-report-seconds N
                        start: how often the played kubelets post a Ready heartbeat (kubelet's default 300)
  --only a,b            build: only these programs
  -h, --help            this text

Exit codes: 0 done, 1 the command failed (the message says why and what to do), 2 a wrong command line.
`;

const PLATFORMS: readonly LabPlatform[] = ["aws", "azure", "gcp", "vsphere", "nutanix", "none"];

function usage(message: string): never {
  throw new LabError(`${message.replace(/\s*\n\s*/g, " ")} (see \`npm run lab -- --help\`)`, 2);
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        platform: { type: "string" },
        json: { type: "boolean" },
        name: { type: "string" },
        "apiserver-port": { type: "string" },
        "infrastructure-name": { type: "string" },
        "no-players": { type: "boolean" },
        players: { type: "string" },
        "node-status-report-seconds": { type: "string" },
        only: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    usage((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    process.stdout.write(HELP);
    return;
  }
  const command = positionals[0];
  if (positionals.length > (command === "apiserver" ? 2 : 1))
    usage(`one command at a time, got: ${positionals.join(" ")}`);
  const name = values.name ?? "default";
  if (!/^[a-z0-9][a-z0-9-]{0,30}$/.test(name))
    usage(`--name must be lower-case letters, digits and '-', got "${name}"`);
  const err = (line: string) => process.stderr.write(`${line}\n`);

  switch (command) {
    case "build": {
      const only = values.only?.split(",").map((s) => s.trim());
      const unknown = (only ?? []).filter((n) => !PROGRAMS.some((p) => p.name === n));
      if (unknown.length > 0)
        usage(`--only: no program named ${unknown.join(", ")} (programs: ${PROGRAMS.map((p) => p.name).join(", ")})`);
      await build(err, only);
      return;
    }
    case "start": {
      const platform = (values.platform ?? "aws") as LabPlatform;
      if (!PLATFORMS.includes(platform))
        usage(`--platform must be one of ${PLATFORMS.join(", ")}, got "${values.platform}"`);
      /** An option's whole number from 1 to `max`, or undefined when it is not given. */
      const whole = (option: "apiserver-port" | "node-status-report-seconds", max: number, what: string) => {
        const text = values[option];
        const n = Number(text);
        if (text !== undefined && (!Number.isInteger(n) || n < 1 || n > max))
          usage(`--${option} must be ${what}, got "${text}"`);
        return text === undefined ? undefined : n;
      };
      const port = whole("apiserver-port", 65535, "a port number");
      const report = whole("node-status-report-seconds", 3600, "whole seconds from 1 to 3600");
      let players: PlayerName[] | undefined;
      if (values.players !== undefined) {
        if (values["no-players"]) usage("--players and --no-players exclude each other");
        const named = values.players.split(",").map((s) => s.trim());
        const isPlayer = (p: string): p is PlayerName => PLAYER_NAMES.some((n) => n === p);
        players = named.filter(isPlayer);
        const unknown = named.filter((p) => !isPlayer(p));
        if (unknown.length > 0 || players.length === 0)
          usage(`--players: unknown player(s) ${unknown.join(", ")} (players: ${PLAYER_NAMES.join(", ")})`);
      }
      const info = await start(
        {
          name,
          platform,
          players: values["no-players"] ? [] : players,
          apiserverPort: port,
          infrastructureName: values["infrastructure-name"],
          nodeStatusReportSeconds: report,
        },
        err,
      );
      if (values.json) {
        process.stdout.write(JSON.stringify(info) + "\n");
      } else {
        process.stdout.write(
          `lab "${name}" is up: ${info.apiserver} (Kubernetes ${info.version}), Pulumi ${info.pulumi}\n` +
            "Paste into a shell to use it:\n" +
            Object.entries(info.env)
              .map(([k, v]) => `export ${k}='${v}'`)
              .join("\n") +
            `\n${nextSteps(name, platform, values["infrastructure-name"])}\n`,
        );
      }
      return;
    }
    case "stop":
      await stop(name, err);
      return;
    case "status": {
      const r = readRecord(name);
      if (!r || running(r).length === 0 || !r.info) {
        const others = allRecords().map((x) => x.name);
        throw new LabError(
          `no lab named "${name}" is running${others.length ? ` (running: ${others.join(", ")})` : ""}`,
        );
      }
      process.stdout.write(JSON.stringify(r.info) + "\n");
      return;
    }
    case "apiserver": {
      const action = positionals[1];
      if (action === "stop") await stopApiserver(name, err);
      else if (action === "start") await startApiserver(name, err);
      else usage(`apiserver takes stop or start, got "${action ?? ""}"`);
      return;
    }
    default:
      usage(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof LabError) {
    process.stderr.write(`lab: ${e.message}\n`);
    process.exit(e.exitCode);
  }
  process.stderr.write(
    `lab: unexpected failure (a bug in the lab): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exit(1);
});
