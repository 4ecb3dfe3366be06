import * as net from "net";
import { waitingLine, withSession } from "../../../providers/ssh/session";
import { isUnreachable } from "../../../lib/errors";

// Issue 41 item 1: a created VM is not reachable for minutes (its first boot renames it, restarts and installs
// OpenSSH), and WindowsHost waits for it (up to 20 minutes): a wait that long says how it goes, never in silence.

/** A port on 127.0.0.1 that nothing listens on (taken, then closed). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

test("the progress line names the host, the time waited of the deadline and the last error", () => {
  expect(waitingLine("Administrator@10.0.1.5:22", 125_000, 1_200_000, "connect ECONNREFUSED 10.0.1.5:22")).toBe(
    "Administrator@10.0.1.5:22: not reachable over SSH yet, still trying (2m05s of 20m00s): connect ECONNREFUSED 10.0.1.5:22",
  );
});

test("while connecting keeps failing it says so every progressSeconds, and fails as unreachable at the deadline", async () => {
  const port = await closedPort();
  const lines: string[] = [];
  const spy = jest.spyOn(console, "error").mockImplementation((l: string) => void lines.push(l));
  try {
    const err = await withSession(
      {
        host: "127.0.0.1",
        port,
        user: "Administrator",
        trustOnFirstUse: true,
        password: "unused",
        // Short, as seconds go: attempts at 0 s, 0.5 s and 1.5 s (backoff 500 ms doubling); the next would pass the
        // deadline, so it gives up there, having said so once a progress interval had passed.
        deadlineSeconds: 2,
        progressSeconds: 0.4,
        connectTimeoutSeconds: 1,
      },
      undefined,
      async () => "connected",
    ).catch((e: Error) => e);
    expect(isUnreachable(err)).toBe(true);
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const l of lines)
      expect(l).toMatch(
        new RegExp(
          `^Administrator@127\\.0\\.0\\.1:${port}: not reachable over SSH yet, still trying \\(0m0\\ds of 0m02s\\): .*ECONNREFUSED`,
        ),
      );
  } finally {
    spy.mockRestore();
  }
});
