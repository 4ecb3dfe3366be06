import { FakeKube } from "./fake-kube";
import { withConnectKube } from "./kube-child";

// The kube child's calls (test/helpers/kube-child.ts) against the fake API server: a call that hangs fails in its own
// time, naming itself, and the child goes on serving the next.
let kube: FakeKube;
beforeEach(async () => {
  kube = new FakeKube();
  await kube.start();
});
afterEach(() => kube.stop());

test("a call that never answers fails within its time, naming the call, and the next call is served", async () => {
  const hung = "new Promise(() => undefined) /* the hung call */";
  await expect(withConnectKube(kube.kubeconfig(), hung, 300)).rejects.toThrow(
    `the kube child's call did not answer within 300 ms: ${hung}`,
  );
  expect(await withConnectKube(kube.kubeconfig(), "Promise.resolve(42)")).toEqual({ ok: true, value: 42, lines: [] });
});
