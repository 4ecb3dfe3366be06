import { errText, JsonObject, keyOf, Kube, metaOf, now, resourcePath, say } from "./kube";

/**
 * Events as client-go's recorder writes them (tools/record/event.go `makeEvent`: name `<object>.<unix nanos in hex>`,
 * the object's namespace or `default` for cluster-scoped objects; events_cache.go `EventCorrelator`: a repeat of the
 * same source, object, type, reason and message bumps `count` and `lastTimestamp` instead of adding an event).
 */
export class Recorder {
  private readonly seen = new Map<string, { namespace: string; name: string; count: number }>();
  constructor(
    private readonly kube: Kube,
    private readonly player: string,
  ) {}

  async event(component: string, involved: JsonObject, type: "Normal" | "Warning", reason: string, message: string) {
    const m = metaOf(involved);
    const namespace = m.namespace || "default";
    const key = [component, m.uid, type, reason, message].join("\u0000");
    const at = now();
    const earlier = this.seen.get(key);
    try {
      if (earlier) {
        earlier.count++;
        await this.kube.patch(resourcePath("v1", "events", earlier.namespace, earlier.name), {
          count: earlier.count,
          lastTimestamp: at,
        });
        return;
      }
      const name = `${m.name}.${(BigInt(Date.now()) * 1_000_000n + BigInt(process.hrtime()[1] % 1_000_000)).toString(16)}`;
      await this.kube.create(resourcePath("v1", "events", namespace), {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: involved.apiVersion,
          kind: involved.kind,
          name: m.name,
          namespace: m.namespace || undefined,
          uid: m.uid,
          resourceVersion: m.resourceVersion,
        },
        type,
        reason,
        message,
        source: { component },
        firstTimestamp: at,
        lastTimestamp: at,
        count: 1,
      });
      this.seen.set(key, { namespace, name, count: 1 });
    } catch (e) {
      say(this.player, `could not record event ${reason} on ${involved.kind} ${keyOf(involved)}: ${errText(e)}`);
    }
  }
}
