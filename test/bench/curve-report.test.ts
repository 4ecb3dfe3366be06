import { CurvePoint, curveSvg, curveTable, marginalCosts, niceMax, Op, OpFigure, OPS } from "../../bench/curve-report";

const ops = (f: (op: Op) => OpFigure): Record<Op, OpFigure> =>
  Object.fromEntries(OPS.map((op) => [op, f(op)])) as Record<Op, OpFigure>;

const cpu = (cli: number, language: number, plugin: number, kubernetes: number) => ({
  cli,
  language,
  plugin,
  kubernetes,
});

/** A point whose ours' times are `oursS` per host plus 5 s, the bare program's `bareS` per host plus 5 s. */
function point(hosts: number, oursS: number, bareS: number): CurvePoint {
  return {
    hosts,
    machine_sets: hosts / 10,
    resources: hosts * 3,
    bare_resources: hosts * 3 + 1,
    load: [3.5, 2.25, 1],
    ours: ops(() => ({ s: 5 + oursS * hosts, language_mb: 100 + hosts, plugin_mb: 80, cpu_s: cpu(4, 2, 1, 0.5) })),
    bare: ops(() => ({ s: 5 + bareS * hosts, language_mb: 90 + hosts, plugin_mb: 70, cpu_s: cpu(2, 2, 0.5, 0.5) })),
  };
}

describe("the cost curve's table", () => {
  it("has one row per point and operation with ours ÷ bare", () => {
    const table = curveTable([point(20, 0.5, 0.25), point(100, 0.5, 0.25)]).split("\n");
    expect(table).toHaveLength(2 + 2 * OPS.length);
    // 20 hosts: ours 15 s, bare 10 s.
    const row = table[2].split("|").map((c) => c.trim());
    expect(row.slice(1, 13)).toEqual([
      "20",
      "2",
      "60 / 61",
      "preview",
      "15.0",
      "10.0",
      "1.50",
      "7.5 / 5.0",
      "1.50",
      "120 / 110",
      "80 / 70",
      "3.5 2.3 1.0",
    ]);
    expect(table[2 + OPS.length]).toContain("| 100 ");
    // Every row as wide as the header (prettier's layout, so docs/benchmarks.md can take it as printed).
    expect(new Set(table.map((l) => l.length)).size).toBe(1);
  });

  it("gives the marginal cost per added host, flat for linear growth and rising for faster growth", () => {
    const linear = marginalCosts([point(100, 0.5, 0.25), point(20, 0.5, 0.25), point(300, 0.5, 0.25)]);
    expect(linear.filter((m) => m.op === "preview")).toEqual([
      { from: 20, to: 100, op: "preview", ours_ms: 500, bare_ms: 250, ours_cpu_ms: 0, bare_cpu_ms: 0 },
      { from: 100, to: 300, op: "preview", ours_ms: 500, bare_ms: 250, ours_cpu_ms: 0, bare_cpu_ms: 0 },
    ]);
    const quadratic = (n: number): CurvePoint => ({
      ...point(n, 0, 0),
      ours: ops(() => ({ s: (n * n) / 1000, language_mb: 0, plugin_mb: 0, cpu_s: cpu((n * n) / 1000, 0, 0, 0) })),
    });
    const [a, b] = marginalCosts([quadratic(20), quadratic(100), quadratic(300)]).filter((m) => m.op === "up");
    expect(b.ours_ms).toBeGreaterThan(a.ours_ms);
    expect(b.ours_cpu_ms).toBeGreaterThan(a.ours_cpu_ms);
  });
});

describe("the cost curve's plot", () => {
  it("is an SVG with a line for ours and one for bare per operation, scaled to round axes", () => {
    const svg = curveSvg([point(20, 0.5, 0.25), point(100, 0.5, 0.25)], "a <busy> machine");
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trim().endsWith("</svg>")).toBe(true);
    // Two panels (time, memory) × 4 operations × ours and bare.
    expect(svg.match(/<polyline /g)).toHaveLength(16);
    expect(svg.match(/<polyline [^>]*stroke-dasharray="5 4"/g)).toHaveLength(8);
    expect(svg).toContain("a &lt;busy> machine");
    // x axis to 100 hosts: the point at 100 sits at the right end of the 560-wide axis starting at 70.
    expect(svg).toContain('points="182.0,');
    expect(svg).toMatch(/ 630\.0,/);
  });

  it("rounds axis maxima up to 1, 2 or 5 times a power of ten", () => {
    expect([niceMax(0), niceMax(0.3), niceMax(1), niceMax(1.1), niceMax(37), niceMax(501), niceMax(1000)]).toEqual([
      1, 0.5, 1, 2, 50, 1000, 1000,
    ]);
  });
});
