import { LabError } from "../../lab/errors";
import { allParts, freePort, HeldPort, portAllocator } from "../../lab/processes";

describe("lab/processes.ts freePort", () => {
  // A kernel as Linux may behave: bind(0) gives the lowest port nothing holds, so a port closed is given again.
  function lowestFree(): { bind: () => Promise<HeldPort>; bound: Set<number> } {
    const bound = new Set<number>();
    const bind = async (): Promise<HeldPort> => {
      let port = 40000;
      while (bound.has(port)) port++;
      bound.add(port);
      return { port, release: async () => void bound.delete(port) };
    };
    return { bind, bound };
  }

  it("never hands out one port twice, even when the kernel gives a closed one again", async () => {
    const { bind, bound } = lowestFree();
    const next = portAllocator(bind);
    expect(await Promise.all([next(), next(), next()])).toEqual([40000, 40001, 40002]);
    expect(await next()).toBe(40003);
    expect(bound.size).toBe(0); // every port it held while asking is released
  });

  it("stops, naming why, when the kernel has nothing but ports handed out", async () => {
    const next = portAllocator(async () => ({ port: 40000, release: async () => undefined }), 3);
    await next();
    await expect(next()).rejects.toThrow(
      new LabError("no port on 127.0.0.1 this lab has not handed out already, after 3 tries"),
    );
  });

  it("gives distinct ports to concurrent callers on this machine", async () => {
    const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
    expect(new Set(ports).size).toBe(40);
  });
});

describe("lab/processes.ts allParts", () => {
  /** A promise settled when the test says, and whether it is settled. */
  function later<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
    let resolve: (v: T) => void = () => undefined;
    let reject: (e: unknown) => void = () => undefined;
    const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
    return { promise, resolve, reject };
  }

  it("logs a part's failure when it happens, waits for the others, and names every part that failed", async () => {
    const lines: string[] = [];
    const api = later<void>();
    const olm = later<void>();
    const all = allParts({ "machine-api": api.promise, OLM: olm.promise }, (l) => lines.push(l));
    let settled = false;
    void all.catch(() => undefined).then(() => (settled = true));
    api.reject(new LabError("machineset exited"));
    await new Promise((r) => setImmediate(r));
    expect(lines).toEqual(["machine-api failed: machineset exited"]);
    expect(settled).toBe(false);
    olm.reject(new LabError("catalog never served"));
    await expect(all).rejects.toThrow(
      new LabError("machine-api failed: machineset exited; OLM failed: catalog never served"),
    );
    expect(lines).toEqual(["machine-api failed: machineset exited", "OLM failed: catalog never served"]);
  });

  it("throws one failure as it is, and passes when every part does", async () => {
    const bug = new TypeError("x is undefined");
    await expect(allParts({ a: Promise.resolve(), b: Promise.reject(bug) }, () => undefined)).rejects.toBe(bug);
    await expect(allParts({ a: Promise.resolve(1), b: Promise.resolve(2) }, () => undefined)).resolves.toBeUndefined();
  });
});
