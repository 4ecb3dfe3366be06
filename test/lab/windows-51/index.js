// Windows PowerShell 5.1 and Win32-OpenSSH as the lab's stand-in (../fake-powershell.js) models them where they bite
// (issue 31; each rule cites the upstream source it follows). One module per area, each
// exporting `RULES` (the table: id, area, what Windows does, source, audit row) and the functions that apply them, so a
// test reads the rule it relies on and the stand-in applies the same function. Plain CommonJS with no dependencies: it
// is copied beside the hosts' `powershell` (test/lab/lab-windows.ts) and runs there.
const AREAS = ["web", "native", "files", "names", "services", "transport", "updates", "boot"];

const modules = AREAS.map((a) => require(`./${a}.js`));

/** Every rule, in area order: `{ id, area, rule, source, rows }` (rows: the audit's rows it stands for). */
const RULES = modules.flatMap((m) => m.RULES);

/** The rule with `id`; throws for an unknown one, so a test cannot cite a rule that does not exist. */
function rule(id) {
  const r = RULES.find((x) => x.id === id);
  if (!r) throw new Error(`no stand-in rule ${id}`);
  return r;
}

/** The one reader of the program's PowerShell every handler reads a script with (statements.js). */
const reader = require("./statements.js");

module.exports = Object.assign({}, ...modules, { RULES, rule, AREAS, reader });
