import { sshString } from "../../lib/ssh-wire";

// RFC 4251 section 5, `string`: "the string "testing" is represented as 00 00 00 07 t e s t i n g", and the empty
// string as 00 00 00 00. The fingerprint is checked where keys are read (test/stacks/key.test.ts, against ssh-keygen's).
test("an SSH string is its length as a big-endian uint32, then its bytes", () => {
  expect(sshString("testing").toString("hex")).toBe("00000007" + Buffer.from("testing").toString("hex"));
  expect(sshString(Buffer.alloc(0)).toString("hex")).toBe("00000000");
  expect(sshString(Buffer.alloc(300, 1)).subarray(0, 4).toString("hex")).toBe("0000012c");
});
