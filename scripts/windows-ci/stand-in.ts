/**
 * The stand-in's Windows PowerShell 5.1 rules (test/lab/windows-51, plain CommonJS shared with the lab hosts) as typed
 * functions for the Windows workflow's predictions. Each function is the one the stand-in applies (docs/testing.md),
 * so a difference on real Windows is a wrong rule, not a wrong copy of it. A function an area module does not export
 * yet is an error naming it.
 */
import * as path from "path";

export interface StandInRule {
  id: string;
  area: string;
  rule: string;
  source: string;
  rows: number[];
}

/** A file's ACL as files.js models it: SIDs granted explicitly and by inheritance, and whether inheritance is cut. */
export interface StandInAcl {
  protected: boolean;
  explicit: string[];
  inherited: string[];
}

/** The agreed functions of the rule modules (/tmp/api.md, issue 31) this workflow predicts with. */
export interface StandIn {
  RULES: StandInRule[];
  rule(id: string): StandInRule;
  isTextContentType(contentType: string | undefined): boolean;
  webContent(contentType: string | undefined, bytes: Buffer): string | Buffer;
  legacyCommandLine(exe: string, args: readonly string[]): string;
  crtParse(commandLine: string): string[];
  mergeKubeadmFlags(flags: readonly string[], removed: readonly string[], envText: string): string[];
  scImagePath(argv: readonly string[]): string | Error;
  encodeText(text: string, encoding: string): Buffer;
  getContentLines(bytes: Buffer): string[];
  sshdKeyLines(bytes: Buffer): string[];
  newFileAcl(): StandInAcl;
  icaclsArgs(line: string): string[];
  icacls(acl: StandInAcl, args: readonly string[]): StandInAcl | Error;
  aclSids(acl: StandInAcl): string[];
  netbiosName(dnsHostName: string): string;
  kubeletDefaultNodeName(dnsHostName: string): string;
  CMD_EXE_MAX_COMMAND_LINE: number;
  execCommandLineProblem(commandLine: string): string | undefined;
  clixml(errorText: string): string;
}

export const RULES_DIR = path.join(__dirname, "..", "..", "test", "lab", "windows-51");

const FUNCTIONS = [
  "rule",
  "isTextContentType",
  "webContent",
  "legacyCommandLine",
  "crtParse",
  "mergeKubeadmFlags",
  "scImagePath",
  "encodeText",
  "getContentLines",
  "sshdKeyLines",
  "newFileAcl",
  "icaclsArgs",
  "icacls",
  "aclSids",
  "netbiosName",
  "kubeletDefaultNodeName",
  "execCommandLineProblem",
  "clixml",
] as const;

/** What the rule modules do not export of what the predictions use (empty when they export it all). */
function missingMembers(m: Record<string, unknown>): string[] {
  const missing: string[] = FUNCTIONS.filter((f) => typeof m[f] !== "function");
  if (typeof m.CMD_EXE_MAX_COMMAND_LINE !== "number") missing.push("CMD_EXE_MAX_COMMAND_LINE");
  if (!Array.isArray(m.RULES)) missing.push("RULES");
  return missing;
}

/** The modules as the typed `StandIn`: every member is checked by missingMembers. */
function isStandIn(m: Record<string, unknown>): m is Record<string, unknown> & StandIn {
  return missingMembers(m).length === 0;
}

/** The rule modules, checked to export what the predictions use. */
export function standIn(dir: string = RULES_DIR): StandIn {
  // Plain CommonJS without types: checked below.
  // layers-allow: the stand-in's rule modules, RULES_DIR unless a test names others (tools may import test/).
  const m: Record<string, unknown> = require(dir);
  if (isStandIn(m)) return m;
  throw new Error(
    `the stand-in's rule modules (${path.relative(process.cwd(), dir)}) do not export ${missingMembers(m).join(", ")}: ` +
      "the Windows checks predict with them",
  );
}
