import { wuaProxy } from "../../../components/day2/patch-rollout";
import { patchingSchema } from "../../../stacks/schema/day2";

// Windows Update ignores the machine's HTTP(S)_PROXY variables (audit-day2 §3 "WinHTTP proxy"): the task sets
// IUpdateSession.WebProxy from patching.proxy, else from the proxy the stack declares for its nodes.
test("patching.proxy wins; else the nodes' proxy, HTTPS first, noProxy as the bypass list; else none", () => {
  const nodes = { httpProxy: "http://h:3128", httpsProxy: "http://s:3129", noProxy: ["10.0.0.0/8", ".svc"] };
  expect(wuaProxy({ url: "http://wu:8080", bypass: ["wsus.example.com"] }, nodes)).toEqual({
    url: "http://wu:8080",
    bypass: ["wsus.example.com"],
  });
  expect(wuaProxy(undefined, nodes)).toEqual({ url: "http://s:3129", bypass: ["10.0.0.0/8", ".svc"] });
  expect(wuaProxy(undefined, { httpProxy: "http://h:3128", noProxy: [] })).toEqual({
    url: "http://h:3128",
    bypass: [],
  });
  expect(wuaProxy(undefined, { noProxy: ["x"] })).toBeUndefined();
  expect(wuaProxy(undefined, undefined)).toBeUndefined();
});

test("patching.proxy takes an http(s) URL and an optional bypass list", () => {
  const base = { minimumUpdateRevision: { "20348": 2900 } };
  expect(patchingSchema.parse({ ...base, proxy: { url: "http://proxy:3128" } })?.proxy).toEqual({
    url: "http://proxy:3128",
    bypass: [],
  });
  expect(patchingSchema.safeParse({ ...base, proxy: { url: "proxy:3128" } }).success).toBe(false);
  expect(patchingSchema.safeParse({ ...base, proxy: { url: "http://p:1", noProxy: [] } }).success).toBe(false);
});
