/**
 * What the workflows need to know of one `Pulumi.<stack>.yaml`, read from the file itself (nothing is decrypted, no
 * Pulumi CLI runs): whether the stack is meant for the pipeline (`windows-estate:pipeline`), and which clouds its
 * program calls at `pulumi preview`/`up`, so that only those jobs ask GitHub for cloud credentials. Pure: text in.
 */
import { parse } from "yaml";
import { isObject, objects } from "../../lib/json";
import { NAMESPACE } from "../../stacks/schema";

export interface StackFacts {
  /** `windows-estate:pipeline`: false keeps the stack out of both workflows. Default true. */
  pipeline: boolean;
  /**
   * The program calls AWS: a `byoh[]` or `nodes[]` entry creates its VM on EC2 (components/provisioning/cloud-hosts.ts,
   * whose AWS provider resolves credentials even at preview: audit row 4, pulumi/pulumi-aws#3971), or an AWS MachineSet
   * leaves `aws.ami` out, so the Windows AMI is looked up at `up` (providers/aws-ami).
   */
  aws: boolean;
  /** The program calls Azure: a `byoh[]` or `nodes[]` entry creates its VM there. */
  azure: boolean;
  /** Settings a GitHub-hosted runner cannot use, said as warnings (the stack still runs). */
  warnings: string[];
}

/** A stack file the workflows cannot plan for: the message names the file, the key and the fix. */
export class StackFileError extends Error {}

/**
 * A value as the program receives it: `pulumi config set` without `--path` stores structured values as JSON text
 * (`"false"`, `"[{…}]"`), which the loader decodes the same way (stacks/load.ts `decode`).
 */
function decoded(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

export function stackFacts(file: string, stack: string, text: string): StackFacts {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new StackFileError(`${file} is not valid YAML: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  }
  // An empty file or one without `config:` is a stack with no settings, which the program refuses on its own.
  const config = isObject(doc) && isObject(doc.config) ? doc.config : {};
  const key = (k: string) => decoded(config[`${NAMESPACE}:${k}`]);

  const pipeline = key("pipeline");
  if (pipeline !== undefined && typeof pipeline !== "boolean")
    throw new StackFileError(
      `${file}: ${NAMESPACE}:pipeline must be true or false, got ${JSON.stringify(config[`${NAMESPACE}:pipeline`])}: ` +
        `\`pulumi config set --stack ${stack} --type bool ${NAMESPACE}:pipeline false\` keeps the stack out of the workflows`,
    );

  const created = [...objects(key("byoh")), ...objects(key("nodes"))];
  const cluster = key("cluster");
  const awsPlatform = isObject(cluster) && cluster.platform === "AWS";
  const lookedUpAmi =
    awsPlatform && objects(key("machineSets")).some((m) => !isObject(m.aws) || m.aws.ami === undefined);

  const warnings: string[] = [];
  const keyPath = key("privateKeyPath");
  if (pipeline !== false && typeof keyPath === "string" && keyPath.startsWith("~"))
    warnings.push(
      `${file}: ${NAMESPACE}:privateKeyPath is ${keyPath}, a file no GitHub-hosted runner has: store the key in the ` +
        `stack file as a secret instead (\`pulumi config set --stack ${stack} --secret ${NAMESPACE}:privateKey < ${keyPath}\`, ` +
        `then \`pulumi config rm --stack ${stack} ${NAMESPACE}:privateKeyPath\`), or set ${NAMESPACE}:pipeline to false`,
    );

  return {
    pipeline: pipeline !== false,
    aws: created.some((e) => e.aws !== undefined) || lookedUpAmi,
    azure: created.some((e) => e.azure !== undefined),
    warnings,
  };
}
