// The stand-in's one reader of the program's PowerShell (see index.js): scripts split into statements as PowerShell's
// parser groups them (a statement ends at a line break or `;` outside quotes, parentheses and braces, unless the line
// ends in `|` or a backtick; `else`, `elseif`, `catch` and `finally` continue the statement before, and so does a `{`
// on the line after a block's head; comments are left out; keywords in any case), blocks opened (`if`, `while`,
// `foreach`, `try` with its catches and finally, `function`) and the few expressions the program's scripts build
// messages and values from evaluated. Every handler that reads a script reads it through here, so a script that
// reorders, nests or drops a statement is seen the same way everywhere. The grammar it follows: about_Parsing,
// about_Quoting_Rules, about_If, about_Try_Catch_Finally, about_Functions, about_Comments, about_Pipelines (Microsoft
// Learn, PowerShell 5.1). What it has no model of it says (`{ unmodelled }`), never guesses; here-strings (`@'…'@`,
// `@"…"@`), which no script of the program uses, are among them.
"use strict";

// PowerShell's tokenizer takes four typographic quotes as single quotes and three as double quotes beside the ASCII
// ones (PowerShell src/System.Management.Automation/engine/parser/CharTraits.cs `SpecialChars`, `IsSingleQuote`,
// `IsDoubleQuote`): each of them opens and ends a string, and in a single-quoted string two of them in a row are one
// character, the second (tokenizer.cs `ScanStringLiteral`).
const SINGLE_QUOTES = "'\u2018\u2019\u201a\u201b";
const DOUBLE_QUOTES = '"\u201c\u201d\u201e';
const isSingleQuote = (c) => c !== undefined && c !== "" && SINGLE_QUOTES.includes(c);
const isDoubleQuote = (c) => c !== undefined && c !== "" && DOUBLE_QUOTES.includes(c);

/**
 * The end (the index after it) of the single-quoted literal opening at `text[i]`, as tokenizer.cs `ScanStringLiteral`
 * reads it, or -1 when it has no end.
 */
function singleQuotedEnd(text, i) {
  for (let k = i + 1; k < text.length; k++) {
    if (!isSingleQuote(text[k])) continue;
    if (!isSingleQuote(text[k + 1])) return k + 1;
    k++;
  }
  return -1;
}

/**
 * A PowerShell single-quoted literal's value (two quotes in a row are the second); `{ unmodelled }` when `q` is not
 * one such literal (a quote inside it not doubled ends it early in PowerShell).
 */
function unquote(q) {
  if (!isSingleQuote(q[0]) || singleQuotedEnd(q, 0) !== q.length) throw { unmodelled: q };
  let out = "";
  for (let k = 1; k < q.length - 1; k++) out += isSingleQuote(q[k]) ? q[++k] : q[k];
  return out;
}

/**
 * Calls `at(c, k, depth)` for each character of `text` outside quotes (single-quoted, or double-quoted with its
 * backtick escapes; any of PowerShell's quote characters), with the nesting depth of `(`/`{` before it; `at`
 * returning true stops the scan. A string without its end is `{ unmodelled }` (PowerShell refuses the script:
 * "The string is missing the terminator").
 */
function scan(text, at, onComment = () => {}) {
  let depth = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (isSingleQuote(c)) {
      const end = singleQuotedEnd(text, k);
      if (end < 0) throw { unmodelled: text.slice(k) };
      k = end - 1;
      continue;
    }
    if (isDoubleQuote(c)) {
      let j = k + 1;
      for (; j < text.length && !isDoubleQuote(text[j]); j++) if (text[j] === "`") j++;
      if (j >= text.length) throw { unmodelled: text.slice(k) };
      k = j;
      continue;
    }
    // A here-string (`@'` or `@"` at the end of a line, about_Quoting_Rules): no model.
    if (
      c === "@" &&
      (isSingleQuote(text[k + 1]) || isDoubleQuote(text[k + 1])) &&
      /^[ \t]*\r?\n/.test(text.slice(k + 2))
    )
      throw { unmodelled: text.slice(k) };
    // Outside strings a backtick escapes the next character; before a line break it continues the line.
    if (c === "`") {
      k++;
      continue;
    }
    // A comment starts a token: `#` to the end of the line, `<#` to `#>` (about_Comments).
    if ((c === "#" || (c === "<" && text[k + 1] === "#")) && (k === 0 || /[\s;(){}|]/.test(text[k - 1]))) {
      let end = c === "#" ? text.indexOf("\n", k) : text.indexOf("#>", k + 2);
      if (c === "<" && end < 0) throw { unmodelled: text.slice(k) };
      end = end < 0 ? text.length : c === "#" ? end : end + 2;
      onComment(k, end);
      k = end - 1;
      continue;
    }
    if (at(c, k, depth)) return;
    if ("{(".includes(c)) depth++;
    else if ("})".includes(c)) depth--;
  }
}

/** A statement ending in a block's head (`if (…)`, `} else`, `catch [T]`, …) whose `{` is still to come. */
const BLOCK_HEAD = /(^|\})\s*(if|elseif|else|while|foreach|try|catch|finally|function)\b[^{}]*$/i;

/** The top-level statements of `text`, trimmed; a continuation (`else`, `catch`, …) joins the statement before. */
function statements(text) {
  // Comments out (as spaces, so the rest stays where it was).
  const comments = [];
  scan(
    text,
    () => false,
    (from, to) => comments.push([from, to]),
  );
  for (const [from, to] of comments.reverse()) text = text.slice(0, from) + " ".repeat(to - from) + text.slice(to);
  const out = [];
  let from = 0;
  scan(text, (c, k, depth) => {
    // A line ending in `|` goes on with the pipeline on the next line (about_Pipelines).
    if (depth === 0 && c === "\n" && text.slice(from, k).trimEnd().endsWith("|")) return false;
    if (depth === 0 && (c === "\n" || c === ";")) {
      out.push(text.slice(from, k).trim());
      from = k + 1;
    }
  });
  out.push(text.slice(from).trim());
  return out.filter(Boolean).reduce((acc, s) => {
    if (/^(else|elseif|catch|finally)\b/i.test(s) && acc.length > 0) acc[acc.length - 1] += " " + s;
    // `if (…)`, `catch [T]` and the like with their `{` on the next line (about_If: the block may follow a line break).
    else if (s.startsWith("{") && acc.length > 0 && BLOCK_HEAD.test(acc[acc.length - 1]))
      acc[acc.length - 1] += " " + s;
    else acc.push(s);
    return acc;
  }, []);
}

/** The balanced `(…)` or `{…}` starting at `text[i]`: its inside and the index after it. */
function balanced(text, i) {
  const close = text[i] === "(" ? ")" : "}";
  let found;
  scan(text.slice(i), (c, k, depth) => {
    if (c === close && depth === 1) return (found = { inside: text.slice(i + 1, i + k), end: i + k + 1 });
  });
  if (!found) throw { unmodelled: text };
  return found;
}

/**
 * `if (c) { a } [elseif (c2) { b }] [else { b }]`, `while (c) { a }`, `foreach ($x in $xs) { a }`,
 * `try { a } [catch [[T1], [T2]] { b }]… [finally { c }]`, `function Name(params) { a }`: its condition (the
 * parameters of a function), body and the other branch (an `elseif` chain as the `if` statement it is; a `try`'s
 * catch when it has one catch of any error and no finally), or undefined for another statement. A `try` also has
 * `catches` (each with its `types`, none: any error) and `finally` (about_Try_Catch_Finally). Keywords are
 * case-insensitive (about_Reserved_Words), and a line break may come before a block's `{` (about_If).
 */
function block(st, kw) {
  const head = kw === "function" ? /^function\s+[\w-]+\s*/i.exec(st) : new RegExp(`^${kw}\\b\\s*`, "i").exec(st);
  if (!head) return undefined;
  let i = head[0].length;
  let cond = "";
  if (st[i] === "(") {
    const c = balanced(st, i);
    cond = c.inside.trim();
    i = c.end;
    while (/\s/.test(st[i] || "")) i++;
  }
  if (st[i] !== "{") return undefined;
  const body = balanced(st, i);
  let rest = st.slice(body.end).trim();
  let otherwise;
  if (kw === "try") {
    const catches = [];
    let m;
    while ((m = /^catch\s*((?:\[[^\]]+\]\s*,?\s*)*)\{/i.exec(rest))) {
      const c = balanced(rest, m[0].length - 1);
      catches.push({ types: m[1].match(/\[[^\]]+\]/g) || [], body: c.inside });
      rest = rest.slice(c.end).trim();
    }
    let fin;
    if ((m = /^finally\s*\{/i.exec(rest))) {
      const f = balanced(rest, m[0].length - 1);
      fin = f.inside;
      rest = rest.slice(f.end).trim();
    }
    if (rest || (catches.length === 0 && fin === undefined)) return undefined;
    const only = catches.length === 1 && catches[0].types.length === 0 && fin === undefined;
    return { cond, body: body.inside, otherwise: only ? catches[0].body : undefined, catches, finally: fin };
  }
  if (kw === "if" && /^elseif\b/i.test(rest)) {
    otherwise = rest.slice("else".length);
    rest = "";
  }
  const elseAt = kw === "if" ? /^else\s*\{/i.exec(rest) : null;
  if (elseAt) {
    const e = balanced(rest, elseAt[0].length - 1);
    otherwise = e.inside;
    rest = rest.slice(e.end).trim();
  }
  if (rest) return undefined;
  return { cond, body: body.inside, otherwise };
}

/** The insides of a block in source order: its body, then its other branches (a `try`'s catches and finally). */
const branches = (b) =>
  b.catches
    ? [b.body, ...b.catches.map((c) => c.body), ...(b.finally === undefined ? [] : [b.finally])]
    : [b.body, ...(b.otherwise === undefined ? [] : [b.otherwise])];

const BLOCKS = ["if", "while", "foreach", "try", "function"];
/** The block `st` is, with its keyword, or undefined for a simple statement. */
function blockOf(st) {
  for (const kw of BLOCKS) {
    const b = block(st, kw);
    if (b) return { kw, ...b };
  }
  return undefined;
}

/**
 * Every statement of `text` in source order, each block followed by the statements inside it (its body, then its
 * other branch); `skip(st)` true leaves a block's inside out.
 */
function walk(text, skip = () => false) {
  return statements(text).flatMap((st) => {
    const b = blockOf(st);
    if (!b || skip(st)) return [st];
    return [st, ...branches(b).flatMap((inside) => walk(inside, skip))];
  });
}

/** The statements of `text` that are no block (commands, assignments, `throw`), in source order; `skip` as walk's. */
const leaves = (text, skip) => walk(text, skip).filter((st) => !blockOf(st));

/** The body of the script's `function <name>`, or undefined when it has none. */
function functionBody(text, name) {
  const st = statements(text).find((s) => s.startsWith(`function ${name}`));
  const b = st && block(st, "function");
  return b ? b.body : undefined;
}

/** `text` split at `sep` (a string) outside quotes and brackets. */
function splitTop(text, sep) {
  const parts = [];
  let from = 0;
  scan(text, (c, k, depth) => {
    if (depth === 0 && text.startsWith(sep, k)) {
      parts.push(text.slice(from, k));
      from = k + sep.length;
    }
  });
  parts.push(text.slice(from));
  return parts;
}

/**
 * The value of an expression the scripts use: a '…' literal, a whole number, `$true`/`$false`, `$name` or
 * `$a.b.c` (from `vars`, by the name after `$`), `$name.Trim()`, arrays `@(…)` and hash tables `@{…}` of values,
 * `($x -join '…')` of an array, `(…)`, and `<term> + <term> + …` (text). Anything else is `{ unmodelled }`.
 */
function value(t, vars = {}) {
  t = t.trim();
  if (isSingleQuote(t[0]) && singleQuotedEnd(t, 0) === t.length) return unquote(t);
  if (/^\d+$/.test(t)) return Number(t);
  if (t === "$true" || t === "$false") return t === "$true";
  const trim = /^\$(\w+)\.Trim\(\)$/.exec(t);
  if (trim) return String(vars[trim[1]] ?? "").trim();
  if (/^\$[\w.]+$/.test(t)) return vars[t.slice(1)];
  const join = /^(\$\w+) -join ('(?:[^']|'')*')$/.exec(t);
  if (join) return (value(join[1], vars) || []).join(unquote(join[2]));
  // `@(…)`: its statements' values, each a `,`-separated list (about_Arrays); `@{ k = v; … }` (about_Hash_Tables).
  if (t.startsWith("@(") && balanced(t, 1).end === t.length)
    return statements(balanced(t, 1).inside)
      .flatMap((st) => splitTop(st, ","))
      .filter((x) => x.trim() !== "")
      .map((x) => value(x, vars));
  if (t.startsWith("@{") && balanced(t, 1).end === t.length)
    return Object.fromEntries(Object.entries(hashEntries(t)).map(([k, v]) => [k, value(v, vars)]));
  if (t.startsWith("(") && balanced(t, 0).end === t.length) return value(balanced(t, 0).inside, vars);
  const terms = splitTop(t, " + ");
  if (terms.length > 1) return terms.map((x) => String(value(x, vars) ?? "")).join("");
  throw { unmodelled: t };
}

/** The entries of the first hash table `@{ k = v; … }` in `st`: each key with its expression's text (none: undefined). */
function hashEntries(st) {
  let at = -1;
  scan(st, (c, k) => c === "@" && st[k + 1] === "{" && (at = k) >= 0);
  if (at < 0) return undefined;
  return Object.fromEntries(
    statements(balanced(st, at + 1).inside).map((kv) => {
      const [k, ...v] = splitTop(kv, " = ");
      if (v.length !== 1 || !/^\w+$/.test(k.trim())) throw { unmodelled: kv };
      return [k.trim(), v[0].trim()];
    }),
  );
}

/**
 * The value of the first assignment `$<name> = …` anywhere in `text` that `accept`s it (default: any value the
 * reader can evaluate), with `vars`; undefined when there is none.
 */
function assigned(text, name, vars = {}, accept = () => true) {
  const prefix = `$${name} = `;
  // Another spelling of the same assignment (`$name=`, `[string]$name = `, `$NAME = `: variable names are
  // case-insensitive, about_Variables) is one the reader would otherwise pass over without a word.
  const nearMiss = new RegExp(`^(\\[[^\\]]+\\]\\s*)*\\$${name}\\s*=(?!=)`, "i");
  for (const st of leaves(text)) {
    if (!st.startsWith(prefix)) {
      if (nearMiss.test(st)) throw { unmodelled: st };
      continue;
    }
    try {
      const v = value(st.slice(prefix.length), vars);
      if (accept(v)) return v;
    } catch (e) {
      if (!e.unmodelled) throw e;
    }
  }
  return undefined;
}

/**
 * The message of the script's first `throw (…)` whose statement contains `words`, its terms evaluated with `vars`;
 * undefined when the script has no such throw.
 */
function thrown(text, words, vars = {}) {
  const st = leaves(text).find((s) => /^throw\b/i.test(s) && s.includes(words));
  return st === undefined ? undefined : thrownBy(st, vars);
}

/** The message `throw …` (the statement, or the one inside an `if (…) { throw … }`) throws, with `vars`. */
function thrownBy(st, vars = {}) {
  const t = leaves(st).find((s) => /^throw\b/i.test(s));
  return t === undefined ? undefined : String(value(t.slice("throw".length), vars) ?? "");
}

/** A native command's words as the program passes them (the `| Out-Null` and any other pipe aside). */
const commandWords = (st) => splitTop(st, "|")[0].trim().split(/\s+/);

module.exports = {
  unquote,
  statements,
  block,
  walk,
  leaves,
  functionBody,
  hashEntries,
  value,
  assigned,
  thrown,
  thrownBy,
  commandWords,
};
