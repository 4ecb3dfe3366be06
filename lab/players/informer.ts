/**
 * A list+watch cache of one resource on @kubernetes/client-node's `Watch`, shaped like client-go's reflector
 * (k8s.io/client-go tools/cache/reflector.go `ListAndWatch`).
 */
import { Watch } from "@kubernetes/client-node";
import { get, isObject, JsonObject, objects, str } from "../../lib/json";
import { errText, isNotFound, keyOf, Kube, metaOf, say } from "./kube";

export type Verb = "ADDED" | "MODIFIED" | "DELETED";

/**
 * A list+watch cache of one resource (client-go reflector.go `ListAndWatch`): list, then watch from the list's
 * resourceVersion; a closed watch resumes from the last seen version, an expired one (410 Gone) relists, an error
 * retries with backoff. `ready` resolves once the first watch is established.
 */
export class Informer {
  private readonly items = new Map<string, JsonObject>();
  private resourceVersion = "";
  private abort?: AbortController;
  private stopped = false;
  private failures = 0;
  private notServedLogged = false;
  private timer?: NodeJS.Timeout;
  private markReady!: () => void;
  readonly ready: Promise<void>;

  constructor(
    private readonly kube: Kube,
    private readonly player: string,
    readonly path: string,
    private readonly selectors: { labelSelector?: string; fieldSelector?: string },
    private readonly onEvent: (verb: Verb, o: JsonObject, old?: JsonObject) => void,
  ) {
    this.ready = new Promise((r) => (this.markReady = r));
  }

  list(namespace?: string): JsonObject[] {
    const all = [...this.items.values()];
    return namespace === undefined ? all : all.filter((o) => metaOf(o).namespace === namespace);
  }
  get(name: string, namespace = ""): JsonObject | undefined {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort?.abort();
  }

  private async run(): Promise<void> {
    if (this.stopped) return;
    try {
      if (!this.resourceVersion) await this.relist();
      const query: Record<string, string | boolean> = {
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
      };
      if (this.selectors.labelSelector) query.labelSelector = this.selectors.labelSelector;
      if (this.selectors.fieldSelector) query.fieldSelector = this.selectors.fieldSelector;
      let established = false;
      this.abort = await new Watch(this.kube.kc).watch(
        this.path,
        query,
        (type, o) => this.apply(type, o),
        (err: unknown) => {
          if (this.stopped) return;
          if (err) {
            const gone = isObject(err) && (err.statusCode === 410 || err.code === 410);
            if (gone) this.resourceVersion = "";
            else return this.retry(err);
          }
          // A watch the server ended normally resumes from the last version seen.
          void this.run();
        },
      );
      established = !this.abort.signal.aborted;
      if (established) {
        this.failures = 0;
        this.markReady();
      }
    } catch (e) {
      // A resource this cluster does not serve (a CRD not installed, e.g. OLM's on kubeadm) has nothing to wait
      // for: count it as established and keep looking for it now and then.
      if (isNotFound(e)) this.markReady();
      this.retry(e);
    }
  }

  private retry(err: unknown): void {
    if (this.stopped) return;
    this.failures++;
    const delay = isNotFound(err) ? 30_000 : Math.min(30_000, 500 * 2 ** Math.min(this.failures, 6));
    if (!isNotFound(err))
      say(this.player, `watch ${this.path} failed (${errText(err)}); retrying in ${Math.round(delay / 1000)}s`);
    else if (!this.notServedLogged)
      say(this.player, `${this.path} is not served by this cluster; looking again every 30s`);
    this.notServedLogged ||= isNotFound(err);
    this.timer = setTimeout(() => void this.run(), delay);
  }

  private async relist(): Promise<void> {
    const q = new URLSearchParams();
    if (this.selectors.labelSelector) q.set("labelSelector", this.selectors.labelSelector);
    if (this.selectors.fieldSelector) q.set("fieldSelector", this.selectors.fieldSelector);
    const list = await this.kube.request("GET", `${this.path}${q.size ? `?${q}` : ""}`);
    const fresh = new Map<string, JsonObject>();
    for (const item of objects(get(list, "items"))) fresh.set(keyOf(item), item);
    for (const [k, old] of this.items) if (!fresh.has(k)) this.emit("DELETED", k, old);
    for (const [k, o] of fresh) this.emit(this.items.has(k) ? "MODIFIED" : "ADDED", k, o);
    this.resourceVersion = str(get(list, "metadata", "resourceVersion")) ?? "";
  }

  private apply(type: string, o: unknown): void {
    if (!isObject(o)) return;
    if (type === "ERROR") {
      if (o.code === 410) this.resourceVersion = "";
      return;
    }
    const rv = metaOf(o).resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (type === "ADDED" || type === "MODIFIED" || type === "DELETED") this.emit(type, keyOf(o), o);
  }

  private emit(verb: Verb, key: string, o: JsonObject): void {
    const old = this.items.get(key);
    if (verb === "DELETED") this.items.delete(key);
    else this.items.set(key, o);
    try {
      this.onEvent(verb, o, old);
    } catch (e) {
      say(this.player, `handler for ${this.path} ${key} failed: ${errText(e)}`);
    }
  }
}
