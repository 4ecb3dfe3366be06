import { DeclaredResource } from "./mock-run";

/** Groups resources for the summary line. */
export function kindOf(r: DeclaredResource): "kubernetes" | "dynamic" | "provider" | "component" | "cloud" | "stack" {
  if (r.type === "pulumi:pulumi:Stack") return "stack";
  if (r.type.startsWith("pulumi:providers:")) return "provider";
  if (r.type.startsWith("pulumi-nodejs:dynamic")) return "dynamic";
  if (!r.custom) return "component";
  if (r.type.startsWith("kubernetes:")) return "kubernetes";
  return "cloud";
}

/** The resource tree as `pulumi preview` would show it, parents first, then a count per kind. */
export function formatTree(stackName: string, resources: DeclaredResource[]): string {
  const children = new Map<string, DeclaredResource[]>();
  const roots: DeclaredResource[] = [];
  const keys = new Set(resources.map((r) => r.key));
  for (const r of resources) {
    if (r.type === "pulumi:pulumi:Stack") continue; // drawn once, as the root line below
    if (r.parent && keys.has(r.parent)) {
      const list = children.get(r.parent) ?? [];
      list.push(r);
      children.set(r.parent, list);
    } else {
      roots.push(r);
    }
  }
  const lines: string[] = [];
  const walk = (r: DeclaredResource, prefix: string, last: boolean, depth: number) => {
    const branch = last ? "└─ " : "├─ ";
    lines.push(`${prefix}${branch}${r.type}  ${r.name}`);
    const kids = children.get(r.key) ?? [];
    const next = prefix + (last ? "   " : "│  ");
    kids.forEach((k, i) => walk(k, next, i === kids.length - 1, depth + 1));
  };
  lines.push(`pulumi:pulumi:Stack  ${stackName}`);
  roots.forEach((r, i) => walk(r, "", i === roots.length - 1, 1));
  const counts = new Map<string, number>();
  for (const r of resources) counts.set(kindOf(r), (counts.get(kindOf(r)) ?? 0) + 1);
  const order = ["kubernetes", "dynamic", "cloud", "component", "provider"];
  const summary = order
    .filter((k) => counts.has(k))
    .map((k) => `${counts.get(k)} ${k}`)
    .join(", ");
  lines.push("", `${resources.length + 1} resources: ${summary}, 1 stack`);
  return lines.join("\n");
}
