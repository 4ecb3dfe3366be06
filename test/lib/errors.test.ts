import { finalError, isFinal, isUnreachable, prefixed, unreachableError } from "../../lib/errors";

// A caller that says what it was doing keeps the flags its callers decide on: withSession retries a step whose
// session was lost (providers/ssh/session.ts `sessionLost`), a refresh keeps the last state for an unreachable host,
// and nothing retries a final error.
test("prefixed puts what was being done first and keeps the unreachable, final and sessionLost flags", () => {
  const lost = prefixed(
    "removing C:\\k on h failed: ",
    Object.assign(unreachableError("the connection was lost"), { sessionLost: true }),
  );
  expect(lost.message).toBe("removing C:\\k on h failed: the connection was lost");
  expect(isUnreachable(lost)).toBe(true);
  expect(lost).toMatchObject({ sessionLost: true });
  const final = prefixed("evicting pod p failed: ", finalError("forbidden"));
  expect(isFinal(final)).toBe(true);
  expect(isUnreachable(final)).toBe(false);
  expect(prefixed("x: ", "a string")).toMatchObject({ message: "x: a string" });
});
