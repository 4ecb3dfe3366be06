// The stand-in's rules table (test/lab/windows-51): every rule is named once, says what Windows does and cites the
// upstream source it follows, so a test that relies on one can name it and a reader can check it.
const win = require("./windows-51");

interface Rule {
  id: string;
  area: string;
  rule: string;
  source: string;
  rows: number[];
}

test("each rule has a unique id in its area's namespace, a statement, a source and its audit rows", () => {
  const rules: Rule[] = win.RULES;
  const ids = rules.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const r of rules) {
    expect(win.AREAS).toContain(r.area);
    expect(r.id.startsWith(`${r.area}.`)).toBe(true);
    expect(r.rule.length).toBeGreaterThan(20);
    expect(r.source.length).toBeGreaterThan(10);
    expect(Array.isArray(r.rows)).toBe(true);
  }
});

test("a rule that does not exist cannot be cited", () => {
  expect(() => win.rule("web.no-such-rule")).toThrow("no stand-in rule web.no-such-rule");
});
