import type * as pulumi from "@pulumi/pulumi";
import { createHash } from "crypto";
import { isUsablePin } from "../ssh/host-key";
import { joinHostPath, relDir, relativePathProblem } from "../ssh/paths";
import { powershellCommand } from "../ssh/powershell";
import { Session, withSession } from "../ssh/session";
import { describeTarget, SshConnection, connectionProblems } from "../ssh/types";
import { isUnknown, UNKNOWN } from "../unknown";
import { checksumScript, parseChecksums, pruneEmptyDirsScript, removeDirScript } from "./scripts";
import { readableStderr } from "../ssh/clixml";
import { prefixed } from "../../lib/errors";

export interface NodeFilesInputs {
  connection: SshConnection;
  directory: string;
  files: Record<string, string>;
  /**
   * The host will never answer (a node removed with `forceRemove`): nothing is read, written or removed on it, and
   * deleting the resource only forgets it. Default false.
   */
  hostGone?: boolean;
}

export interface NodeFilesOutputs extends NodeFilesInputs {
  /** Relative path → sha256 of what is on the host (after create/update: what was declared). */
  checksums: Record<string, string>;
  /** The host key seen (pinned from then on when trust-on-first-use was asked for). */
  hostKey: string;
  hostKeyFingerprint: string;
}

const sha256 = (text: string) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");

export function declaredChecksums(files: Record<string, string>): Record<string, string> {
  return sortKeys(
    Object.fromEntries(Object.entries(files).map(([rel, text]) => [rel.replace(/\\/g, "/"), sha256(text)])),
  );
}

async function run(s: Session, script: string): Promise<string> {
  const r = await s.exec(s.style === "windows" ? powershellCommand(script) : script);
  if (r.code !== 0)
    throw new Error(
      `a command on the host failed (exit ${r.code}): ${readableStderr(r.stderr).trim().split("\n").slice(-3).join(" ").slice(0, 500)}`,
    );
  return r.stdout;
}

async function hostChecksums(s: Session, dir: string): Promise<Record<string, string>> {
  return parseChecksums(await run(s, checksumScript(dir, s.style)), s.style);
}

/**
 * Makes `directory` on the host hold exactly the declared files: writes what differs (atomically), removes what
 * is not declared (including temp files an interrupted run left), in one connection.
 */
async function converge(inputs: NodeFilesInputs, recordedHostKey: string | undefined): Promise<NodeFilesOutputs> {
  const style = inputs.connection.pathStyle ?? "windows";
  // Safe to run again from the start if the relay's session is lost under it: it compares what is there with what is
  // declared, writes through a temp file and a rename, and removes the temp files an interrupted run left.
  return withSession(
    inputs.connection,
    recordedHostKey,
    async (s) => {
      const desired = declaredChecksums(inputs.files);
      const actual = await hostChecksums(s, inputs.directory);
      const dirs = new Set<string>([""]);
      for (const rel of Object.keys(desired)) if (actual[rel] !== desired[rel]) dirs.add(relDir(rel));
      for (const d of [...dirs].sort())
        if (d !== "" || Object.keys(actual).length === 0) await s.mkdirp(joinHostPath(inputs.directory, d, style));
      for (const [rel, text] of Object.entries(inputs.files)) {
        const key = rel.replace(/\\/g, "/");
        if (actual[key] !== desired[key])
          await s.writeFileAtomic(joinHostPath(inputs.directory, key, style), Buffer.from(text, "utf8"));
      }
      const extra = Object.keys(actual).filter((rel) => !(rel in desired));
      for (const rel of extra) await s.unlink(joinHostPath(inputs.directory, rel, style));
      if (extra.some((rel) => relDir(rel) !== "")) await run(s, pruneEmptyDirsScript(inputs.directory, style));
      return {
        ...inputs,
        checksums: desired,
        hostKey: recordedHostKey ?? s.hostKey,
        hostKeyFingerprint: s.hostKeyFingerprint,
      };
    },
    { retriesOnRelayLoss: 2 },
  );
}

/** Bounds that keep one resource to what SFTP moves in reasonable time; larger sets belong in an image or a package. */
export const MAX_FILES = 2000;
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** Problems with the inputs, named by property, before anything connects; messages never quote credentials. */
export function checkInputs(news: NodeFilesInputs): pulumi.dynamic.CheckFailure[] {
  const failures: pulumi.dynamic.CheckFailure[] = [];
  const c = news.connection;
  if (isUnknown(c) || isUnknown(news.directory) || isUnknown(news.files)) return failures;
  for (const reason of connectionProblems(c, isUsablePin, isUnknown)) failures.push({ property: "connection", reason });
  const style = c?.pathStyle ?? "windows";
  const absolute = style === "windows" ? /^[A-Za-z]:\\/ : /^\//;
  if (typeof news.directory !== "string" || !absolute.test(news.directory)) {
    failures.push({
      property: "directory",
      reason:
        style === "windows"
          ? "must be an absolute Windows path like C:\\k\\containerd\\registries"
          : "must be an absolute path",
    });
  } else if (/^[A-Za-z]:\\?$|^\/$/.test(news.directory)) {
    failures.push({
      property: "directory",
      reason: "must not be a drive or filesystem root: the provider owns and can remove this directory",
    });
  }
  const entries = Object.entries(news.files ?? {});
  if (entries.length > MAX_FILES)
    failures.push({
      property: "files",
      reason: `${entries.length} files is more than ${MAX_FILES} per resource; split them over several NodeFiles resources`,
    });
  for (const [rel, text] of entries.slice(0, MAX_FILES)) {
    if (typeof text === "string" && Buffer.byteLength(text, "utf8") > MAX_FILE_BYTES)
      failures.push({
        property: "files",
        reason: `${JSON.stringify(rel)} is larger than ${MAX_FILE_BYTES / 2 ** 20} MiB`,
      });
    // A lone surrogate cannot be written as UTF-8: the host would get U+FFFD instead of what was declared.
    if (
      typeof text === "string" &&
      /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)
    ) {
      failures.push({
        property: "files",
        reason: `${JSON.stringify(rel)} is not valid Unicode text (it holds a lone surrogate); NodeFiles writes UTF-8 text`,
      });
    }
    const problem = relativePathProblem(rel);
    if (problem) failures.push({ property: "files", reason: `${JSON.stringify(rel)} ${problem}` });
    if (typeof text !== "string" && !isUnknown(text))
      failures.push({ property: "files", reason: `${JSON.stringify(rel)} must be text` });
  }
  return failures;
}

function identity(i: NodeFilesInputs): string[] {
  return [i.connection?.host, String(i.connection?.port ?? 22), i.connection?.pathStyle ?? "windows", i.directory].map(
    String,
  );
}

/**
 * The NodeFiles dynamic provider: owns one directory on one host. Every method requires what it needs inside
 * itself, because this object is serialized into state and run by Pulumi's dynamic-provider host.
 */
export const nodeFilesProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds: NodeFilesInputs, news: NodeFilesInputs) {
    return { inputs: news, failures: checkInputs(news) };
  },
  async diff(_id: string, olds: NodeFilesOutputs, news: NodeFilesInputs) {
    // A host that is gone is only ever recorded as gone: no replacement, no rewrite.
    if (news.hostGone) return { changes: olds.hostGone !== true, replaces: [], deleteBeforeReplace: true };
    const before = identity(olds);
    const after = identity(news);
    const names = ["connection", "connection", "connection", "directory"];
    const replaces = [
      ...new Set(after.map((v, i) => (v !== before[i] || v === UNKNOWN ? names[i] : "")).filter((n) => n !== "")),
    ];
    const filesUnknown = isUnknown(news.files) || Object.values(news.files ?? {}).some(isUnknown);
    const drift =
      filesUnknown ||
      JSON.stringify(declaredChecksums(news.files ?? {})) !== JSON.stringify(sortKeys(olds.checksums ?? {}));
    const connectionChanged = JSON.stringify(olds.connection) !== JSON.stringify(news.connection);
    return { changes: replaces.length > 0 || drift || connectionChanged, replaces, deleteBeforeReplace: true };
  },
  async create(inputs: NodeFilesInputs) {
    const outs = inputs.hostGone ? gone(inputs) : await converge(inputs, undefined);
    return { id: `${describeTarget(inputs.connection)}:${inputs.directory}`, outs };
  },
  async read(id: string, props?: NodeFilesOutputs) {
    if (!props) return { id, props: {} };
    if (props.hostGone) return { id, props };
    // Only reads.
    const checksums = await withSession(props.connection, props.hostKey, (s) => hostChecksums(s, props.directory), {
      retriesOnRelayLoss: 2,
    });
    return { id, props: { ...props, checksums } };
  },
  async update(_id: string, olds: NodeFilesOutputs, news: NodeFilesInputs) {
    return { outs: news.hostGone ? gone(news, olds) : await converge(news, olds.hostKey) };
  },
  async delete(_id: string, props: NodeFilesOutputs) {
    if (props.hostGone) return;
    // Removing a directory that is (partly) gone already is the same removal.
    await withSession(
      props.connection,
      props.hostKey,
      (s) =>
        run(s, removeDirScript(props.directory, s.style)).catch((e: unknown) => {
          throw prefixed(`removing ${props.directory} on ${describeTarget(props.connection)} failed: `, e);
        }),
      { retriesOnRelayLoss: 2 },
    );
  },
};

/** What is recorded for a host that is gone: the last known files and host key, nothing read from it. */
function gone(i: NodeFilesInputs, olds?: NodeFilesOutputs): NodeFilesOutputs {
  return {
    ...i,
    hostGone: true,
    checksums: olds?.checksums ?? {},
    hostKey: olds?.hostKey ?? "",
    hostKeyFingerprint: olds?.hostKeyFingerprint ?? "",
  };
}

function sortKeys(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
