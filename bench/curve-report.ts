/**
 * The cost curve's figures as text and as a picture (bench/curve.ts measures them): a table with the ratio ours ÷ bare
 * per point and operation, the marginal cost per host between points (a cost that grows faster than linearly shows
 * as a marginal cost that rises with N), and an SVG drawn here (no plotting dependency).
 */

export const OPS = ["preview", "up", "noop_up", "refresh"] as const;
export type Op = (typeof OPS)[number];

/**
 * One operation of one program at one point: wall time, peak resident memory of the language host and the plugin,
 * and CPU seconds of the processes the CLI started: the CLI (the engine), the language host, the dynamic-provider
 * plugin, pulumi-resource-kubernetes.
 */
export interface OpFigure {
  s: number;
  language_mb: number;
  plugin_mb: number;
  cpu_s: { cli: number; language: number; plugin: number; kubernetes: number };
}

/** CPU seconds of all four. */
export const cpuTotal = (f: OpFigure): number =>
  Math.round((f.cpu_s.cli + f.cpu_s.language + f.cpu_s.plugin + f.cpu_s.kubernetes) * 10) / 10;

export interface CurvePoint {
  hosts: number;
  machine_sets: number;
  /** Resources in ours' plan and in the bare program's. */
  resources: number;
  bare_resources: number;
  /** The machine's load averages (1, 5, 15 min) when the point finished: the machine is shared. */
  load: [number, number, number];
  /** The checkpoint's size after the operations (`pulumi stack export`, bench/state-size.ts), ours and bare. */
  checkpoint_kb?: { ours: number; bare: number };
  ours: Record<Op, OpFigure>;
  bare: Record<Op, OpFigure>;
}

const LABEL: Record<Op, string> = { preview: "preview", up: "first up", noop_up: "no-op up", refresh: "refresh" };

/** a ÷ b to two decimals (0 when b is 0). */
const over = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 100) / 100);

/** A Markdown table (prettier's layout: columns padded to their widest cell). */
export function markdownTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** The curve as a table: one row per point and operation, with ours ÷ bare. */
export function curveTable(points: CurvePoint[]): string {
  const rows = points.flatMap((p) =>
    OPS.map((op) => [
      String(p.hosts),
      String(p.machine_sets),
      `${p.resources} / ${p.bare_resources}`,
      LABEL[op],
      p.ours[op].s.toFixed(1),
      p.bare[op].s.toFixed(1),
      over(p.ours[op].s, p.bare[op].s).toFixed(2),
      `${cpuTotal(p.ours[op]).toFixed(1)} / ${cpuTotal(p.bare[op]).toFixed(1)}`,
      over(cpuTotal(p.ours[op]), cpuTotal(p.bare[op])).toFixed(2),
      `${Math.round(p.ours[op].language_mb)} / ${Math.round(p.bare[op].language_mb)}`,
      `${Math.round(p.ours[op].plugin_mb)} / ${Math.round(p.bare[op].plugin_mb)}`,
      p.load.map((l) => l.toFixed(1)).join(" "),
    ]),
  );
  return markdownTable(
    [
      "BYOH hosts",
      "MachineSets",
      "resources ours / bare",
      "operation",
      "ours s",
      "bare s",
      "ours ÷ bare",
      "CPU s ours / bare",
      "CPU ours ÷ bare",
      "language host MB ours / bare",
      "plugin MB ours / bare",
      "load 1 5 15",
    ],
    rows,
  );
}

/**
 * The marginal cost per host between consecutive points, in ms of wall time per added host, per operation, for ours
 * and bare: `(t₂ − t₁) ÷ (N₂ − N₁)`. Linear growth keeps it flat; a rising one is the part that grows faster.
 */
export function marginalCosts(
  points: CurvePoint[],
): { from: number; to: number; op: Op; ours_ms: number; bare_ms: number; ours_cpu_ms: number; bare_cpu_ms: number }[] {
  const sorted = [...points].sort((a, b) => a.hosts - b.hosts);
  return sorted.slice(1).flatMap((p, i) => {
    const q = sorted[i];
    const per = (a: number, b: number) => Math.round(((a - b) * 1000) / (p.hosts - q.hosts));
    return OPS.map((op) => ({
      from: q.hosts,
      to: p.hosts,
      op,
      ours_ms: per(p.ours[op].s, q.ours[op].s),
      bare_ms: per(p.bare[op].s, q.bare[op].s),
      ours_cpu_ms: per(cpuTotal(p.ours[op]), cpuTotal(q.ours[op])),
      bare_cpu_ms: per(cpuTotal(p.bare[op]), cpuTotal(q.bare[op])),
    }));
  });
}

export function marginalTable(points: CurvePoint[]): string {
  return markdownTable(
    ["hosts", "operation", "ours ms per added host", "bare ms per added host", "CPU ms per added host ours / bare"],
    marginalCosts(points).map((m) => [
      `${m.from} → ${m.to}`,
      LABEL[m.op],
      String(m.ours_ms),
      String(m.bare_ms),
      `${m.ours_cpu_ms} / ${m.bare_cpu_ms}`,
    ]),
  );
}

const COLOURS: Record<Op, string> = { preview: "#1f77b4", up: "#d62728", noop_up: "#2ca02c", refresh: "#9467bd" };
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");

/** A round axis maximum at or above `v` (1, 2 or 5 × a power of ten). */
export function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 5, 10].find((m) => m * p >= v) ?? 10) * p;
}

/** One panel: x = hosts, y = `value` of ours (solid) and bare (dashed) per operation. */
function panel(points: CurvePoint[], title: string, unit: string, value: (f: OpFigure) => number, top: number): string {
  const [x0, y0, w, h] = [70, top + 30, 560, 220];
  const sorted = [...points].sort((a, b) => a.hosts - b.hosts);
  const xMax = niceMax(Math.max(...sorted.map((p) => p.hosts)));
  const yMax = niceMax(Math.max(...sorted.flatMap((p) => OPS.flatMap((op) => [value(p.ours[op]), value(p.bare[op])]))));
  const X = (n: number) => (x0 + (n / xMax) * w).toFixed(1);
  const Y = (v: number) => (y0 + h - (v / yMax) * h).toFixed(1);
  const out = [
    `<text x="${x0}" y="${top + 18}" font-size="14" font-weight="bold">${esc(title)}</text>`,
    `<line x1="${x0}" y1="${y0 + h}" x2="${x0 + w}" y2="${y0 + h}" stroke="#000"/>`,
    `<line x1="${x0}" y1="${y0}" x2="${x0}" y2="${y0 + h}" stroke="#000"/>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const xv = (xMax * i) / 4;
    const yv = (yMax * i) / 4;
    out.push(
      `<text x="${X(xv)}" y="${y0 + h + 16}" font-size="11" text-anchor="middle">${xv}</text>`,
      `<text x="${x0 - 6}" y="${Number(Y(yv)) + 4}" font-size="11" text-anchor="end">${yv}</text>`,
      `<line x1="${x0}" y1="${Y(yv)}" x2="${x0 + w}" y2="${Y(yv)}" stroke="#ddd"/>`,
    );
  }
  out.push(
    `<text x="${x0 + w / 2}" y="${y0 + h + 32}" font-size="12" text-anchor="middle">BYOH hosts (MachineSets = hosts ÷ 10)</text>`,
    `<text x="${x0 - 50}" y="${y0 + h / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 ${x0 - 50} ${y0 + h / 2})">${esc(unit)}</text>`,
  );
  for (const op of OPS)
    for (const [who, dash] of [
      ["ours", ""],
      ["bare", ' stroke-dasharray="5 4"'],
    ] as const) {
      const pts = sorted.map((p) => `${X(p.hosts)},${Y(value(p[who][op]))}`).join(" ");
      out.push(`<polyline points="${pts}" fill="none" stroke="${COLOURS[op]}" stroke-width="2"${dash}/>`);
      for (const p of sorted)
        out.push(`<circle cx="${X(p.hosts)}" cy="${Y(value(p[who][op]))}" r="3" fill="${COLOURS[op]}"/>`);
    }
  return out.join("\n");
}

/** The curve as an SVG: wall time and the language host's peak memory against N, ours solid, bare dashed. */
export function curveSvg(points: CurvePoint[], subtitle = ""): string {
  const legend = OPS.map(
    (op, i) =>
      `<rect x="${660}" y="${60 + i * 20}" width="12" height="12" fill="${COLOURS[op]}"/>` +
      `<text x="${678}" y="${70 + i * 20}" font-size="12">${LABEL[op]}</text>`,
  ).join("\n");
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="820" height="640" font-family="sans-serif">`,
    `<rect width="820" height="640" fill="#fff"/>`,
    `<text x="10" y="14" font-size="11" fill="#555">${esc(subtitle)}</text>`,
    panel(points, "Wall time through the real CLI", "seconds", (f) => f.s, 20),
    panel(points, "Peak RSS of the language host (node running the program)", "MB", (f) => f.language_mb, 330),
    legend,
    `<line x1="660" y1="150" x2="690" y2="150" stroke="#000" stroke-width="2"/><text x="696" y="154" font-size="12">estate</text>`,
    `<line x1="660" y1="170" x2="690" y2="170" stroke="#000" stroke-width="2" stroke-dasharray="5 4"/><text x="696" y="174" font-size="12">bare program</text>`,
    `</svg>`,
    "",
  ].join("\n");
}
