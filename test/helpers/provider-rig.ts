import { DynamicPlugin } from "./dynamic-plugin";
import { FakeKube } from "./fake-kube";

/**
 * What a test file runs a serialized dynamic provider against, as `pulumi up` would: the Kubernetes API stand-in and
 * the real dynamic-provider plugin, for the whole file. Both are started by a beforeAll registered here (so before
 * the file's own, which may add routes) and stopped after the file's tests, the plugin first (its providers may hold
 * connections to the stand-in and the hosts), then the stand-in, then the hosts `hosts()` names then (one a failed
 * beforeAll left undefined is passed over).
 */
export function providerRigPerFile(hosts: () => readonly ({ stop(): Promise<void> } | undefined)[] = () => []): {
  kube: FakeKube;
  plugin: DynamicPlugin;
} {
  const kube = new FakeKube();
  const plugin = new DynamicPlugin();
  beforeAll(async () => {
    await kube.start();
    // The plugin's one required argument is the engine's address (cmd/dynamic-provider main); nothing listens there.
    await plugin.start("127.0.0.1:1");
  });
  afterAll(async () => {
    await plugin.stop();
    await kube.stop();
    await Promise.all(hosts().map((h) => h?.stop()));
  });
  return { kube, plugin };
}
