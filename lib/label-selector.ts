/**
 * Checks a label selector string the way the API server will read it (`?labelSelector=`, kubectl's `--selector` and
 * `--pod-selector`), so a typo in a stack file is reported by `pulumi preview` rather than by the API server in the
 * middle of a rollout. Modelled on k8s.io/apimachinery pkg/labels/selector.go (`Parse`: the lexer's tokens, the
 * requirement grammar, `NewRequirement`'s value rules) and pkg/util/validation (`IsQualifiedName`,
 * `IsValidLabelValue`). Written independently; pure and dependency-free.
 *
 * Grammar (comma-separated requirements): `key`, `!key`, `key=value`, `key==value`, `key!=value`,
 * `key in (v1,v2)`, `key notin (v1,v2)`, `key>n`, `key<n` (n an integer).
 */

const SPECIAL = new Set(["=", "!", "(", ")", ",", ">", "<"]);
const OPERATORS = ["==", "!=", "=", ">", "<", "!", "(", ")", ","];
const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

type Token = { kind: "id" | "op" | "end"; text: string };

function lex(s: string): Token[] | string {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const ch = s[i];
    if (/\s/.test(ch)) {
      i++;
    } else if (SPECIAL.has(ch)) {
      // The longest operator that starts here (`!=` before `!`, `==` before `=`).
      const op = OPERATORS.find((o) => s.startsWith(o, i));
      if (!op) return `unexpected '${ch}' at ${i + 1}`;
      out.push({ kind: "op", text: op });
      i += op.length;
    } else {
      let j = i;
      while (j < s.length && !SPECIAL.has(s[j]) && !/\s/.test(s[j])) j++;
      out.push({ kind: "id", text: s.slice(i, j) });
      i = j;
    }
  }
  out.push({ kind: "end", text: "end of string" });
  return out;
}

function keyProblem(key: string): string | undefined {
  const slash = key.indexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
    return `label key "${key}": the prefix must be a DNS subdomain (lower case, at most 253 characters)`;
  if (name.length === 0 || name.length > 63 || !NAME.test(name))
    return `label key "${key}": the name must be 1-63 characters, alphanumeric at both ends, with - _ . inside`;
  return undefined;
}

function valueProblem(key: string, v: string): string | undefined {
  if (v === "") return undefined;
  if (v.length > 63 || !NAME.test(v))
    return `label value "${v}" of ${key}: at most 63 characters, alphanumeric at both ends, with - _ . inside`;
  return undefined;
}

/** Why a label selector would be refused, or undefined when it is valid (the empty selector selects everything). */
export function labelSelectorProblem(selector: string): string | undefined {
  const tokens = lex(selector);
  if (typeof tokens === "string") return tokens;
  let p = 0;
  const next = () => tokens[p++];
  const peek = () => tokens[p];
  if (peek().kind === "end") return undefined;
  for (;;) {
    let t = next();
    const negated = t.kind === "op" && t.text === "!";
    if (negated) t = next();
    // `in` and `notin` are keywords only in the operator position; as keys they are plain identifiers.
    if (t.kind !== "id") return `found '${t.text}', expected a label key`;
    const key = t.text;
    const bad = keyProblem(key);
    if (bad) return bad;
    const after = peek();
    const bare = after.kind === "end" || (after.kind === "op" && after.text === ",");
    if (negated && !bare) return `found '${after.text}' after !${key}, expected ',' or the end`;
    if (!bare) {
      const op = next();
      if (op.kind === "id" && (op.text === "in" || op.text === "notin")) {
        if (next().text !== "(") return `expected '(' after ${key} ${op.text}`;
        const values: string[] = [];
        for (;;) {
          const v = next();
          if (v.kind === "id") values.push(v.text);
          else if (v.kind === "op" && v.text === ",") values.push("");
          else if (v.kind === "op" && v.text === ")") break;
          else return `found '${v.text}' in the values of ${key}, expected ',', ')' or a value`;
          if (v.kind === "id") {
            const sep = next();
            if (sep.text === ")") break;
            if (sep.text !== ",") return `found '${sep.text}' in the values of ${key}, expected ',' or ')'`;
          }
        }
        for (const v of values) {
          const vb = valueProblem(key, v);
          if (vb) return vb;
        }
      } else if (op.kind === "op" && ["=", "==", "!=", ">", "<"].includes(op.text)) {
        const v = peek();
        const value = v.kind === "id" ? next().text : "";
        if (v.kind === "op" && v.text !== ",") return `found '${v.text}' after ${key}${op.text}, expected a value`;
        if ((op.text === ">" || op.text === "<") && !/^[-+]?\d+$/.test(value))
          return `${key}${op.text}${value}: '>' and '<' need an integer`;
        const vb = valueProblem(key, value);
        if (vb) return vb;
      } else {
        return `found '${op.text}' after ${key}, expected one of =, ==, !=, in, notin, >, <`;
      }
    }
    const sep = next();
    if (sep.kind === "end") return undefined;
    if (sep.text !== ",") return `found '${sep.text}', expected ',' or the end`;
    if (peek().kind === "end") return "a selector may not end with ','";
  }
}
