import { ConfigErrors, loadEstateConfig, RawConfig } from "../../stacks/load";
import { DOMAIN_VALIDATORS } from "../../components/validators";
import { scratch } from "../helpers/stack";

// Random mutations of valid stack configs: the loader either accepts the config or refuses it with ConfigErrors
// whose every line names a windows-estate key. Anything else (a TypeError, a hang) is a bug. Seeded, so a failure
// reproduces; the seed is in the test name.
const s = scratch();
afterAll(() => s.cleanup());

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const base = (): Record<string, unknown> => ({
  cluster: { platform: "Azure", infrastructureId: "win-tmk9g", region: "westus", context: "admin" },
  privateKeyPath: s.keyPath,
  operator: {
    channel: "stable",
    installPlanApproval: "Manual",
    env: { ARGS: "--debugLogging" },
    waitTimeoutSeconds: 600,
  },
  mirrors: {
    digest: [
      { source: "mcr.microsoft.com/oss/kubernetes/pause", mirrors: ["mirror.example.com/oss/kubernetes/pause"] },
    ],
    tag: [],
  },
  byoh: [{ address: "10.0.0.5", username: "Administrator", trustOnFirstUse: true }],
  machineSets: [],
});

const garbage = (r: () => number): unknown => {
  const pick = Math.floor(r() * 12);
  return [
    null,
    true,
    -1,
    1e308,
    "",
    "x".repeat(1 + Math.floor(r() * 5000)),
    "\u0000\uffff\ud800",
    [],
    {},
    { __proto__: { polluted: true } },
    [[[[[]]]]],
    "../../../../etc/passwd",
  ][pick];
};

/** Walks to a random node of the config and replaces, deletes or wraps it. */
function mutate(cfg: Record<string, unknown>, r: () => number): Record<string, unknown> {
  const out = JSON.parse(JSON.stringify(cfg)) as Record<string, unknown>;
  const steps = 1 + Math.floor(r() * 3);
  for (let i = 0; i < steps; i++) {
    let node: Record<string, unknown> | unknown[] = out;
    for (;;) {
      const keys = Object.keys(node);
      if (keys.length === 0) break;
      const k = keys[Math.floor(r() * keys.length)];
      const child = (node as Record<string, unknown>)[k];
      const stop = r() < 0.35 || child === null || typeof child !== "object";
      if (stop) {
        const action = r();
        if (action < 0.4) (node as Record<string, unknown>)[k] = garbage(r);
        else if (action < 0.6 && !Array.isArray(node)) delete (node as Record<string, unknown>)[k];
        else if (action < 0.8) (node as Record<string, unknown>)[k] = [child];
        else
          (node as Record<string, unknown>)[k + (r() < 0.5 ? "x" : "")] =
            typeof child === "string" ? child.toUpperCase() : String(child);
        break;
      }
      node = child as Record<string, unknown>;
    }
  }
  return out;
}

function raw(cfg: Record<string, unknown>): RawConfig {
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(cfg))
    values[`windows-estate:${k}`] = typeof v === "string" ? v : JSON.stringify(v);
  return { values, secretKeys: new Set() };
}

const SEEDS = Array.from({ length: 400 }, (_, i) => 1000 + i);

test("the unmutated config is accepted (so mutations, not the base, cause refusals)", () => {
  expect(() =>
    loadEstateConfig(raw(base()), { projectDir: s.dir, offline: true, validators: DOMAIN_VALIDATORS }),
  ).not.toThrow();
});

test(`400 mutated configs are accepted or refused with key-naming messages, never crash (seeds ${SEEDS[0]}..${SEEDS[SEEDS.length - 1]})`, () => {
  let refused = 0;
  for (const seed of SEEDS) {
    const cfg = mutate(base(), rng(seed));
    try {
      loadEstateConfig(raw(cfg), { projectDir: s.dir, offline: true, validators: DOMAIN_VALIDATORS });
    } catch (e) {
      if (!(e instanceof ConfigErrors))
        throw new Error(`seed ${seed}: ${(e as Error).stack}\nconfig: ${JSON.stringify(cfg).slice(0, 500)}`);
      refused++;
      expect(e.issues.length).toBeGreaterThan(0);
      for (const line of e.message.split("\n").slice(1))
        expect(`seed ${seed}: ${line}`).toMatch(/^seed \d+: {3}windows-estate:[A-Za-z]/);
      expect(e.message.length).toBeLessThan(20_000); // a huge value is described, not echoed
    }
  }
  // The mutations must actually bite most of the time, or this test proves nothing.
  expect(refused).toBeGreaterThan(SEEDS.length / 2);
});
