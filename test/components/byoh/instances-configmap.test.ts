import { stringify } from "yaml";
import { buildInstancesConfigMap } from "../../../components/byoh/instances-configmap";
import { validateByoh } from "../../../components/byoh/validate";
import { byohSchema } from "../../../stacks/schema/byoh";
import { validateObject } from "../../helpers/schemas";

describe("windows-instances ConfigMap", () => {
  const cm = buildInstancesConfigMap("openshift-windows-machine-config-operator", [
    { address: "instance.example.com", username: "core" },
    { address: "10.1.42.1", username: "Administrator" },
  ]);

  test("values are exactly username=<user>, as WMCO splits them", () => {
    expect(cm.data).toEqual({ "10.1.42.1": "username=Administrator", "instance.example.com": "username=core" });
    for (const v of Object.values(cm.data)) {
      const [k, user] = v.split(/=(.*)/s);
      expect(k).toBe("username");
      expect(user).not.toMatch(/\s/);
    }
  });

  test("rendered YAML carries no trailing newline in the values", () => {
    const yaml = stringify(cm);
    expect(yaml).toContain("10.1.42.1: username=Administrator\n");
    expect(yaml).not.toMatch(/username=\S+\\n/);
  });

  test("valid against the ConfigMap schema (closed)", () => {
    expect(validateObject(cm, { closed: true })).toBe("");
  });

  test("removing a host removes its key (WMCO then deconfigures that node)", () => {
    const fewer = buildInstancesConfigMap("ns", [{ address: "10.1.42.1", username: "Administrator" }]);
    expect(Object.keys(fewer.data)).toEqual(["10.1.42.1"]);
  });
});

describe("BYOH validation", () => {
  const host = (over: Record<string, unknown>) =>
    byohSchema.parse([
      {
        address: "10.0.0.5",
        username: "Administrator",
        hostKey: "SHA256:3KkVtdpSNxjs6Ca4vpFpuZcMj2LsmiUbk1FD6nfTDsc",
        ...over,
      },
    ])[0];
  const check = (hosts: ReturnType<typeof host>[], secrets: string[] = []) => validateByoh(hosts, new Set(secrets));

  test("a good host passes", () => expect(check([host({})])).toEqual([]));
  test.each([
    ["IPv6", { address: "fd00::5" }, "byoh[0].address", /IPv6/],
    ["address with port", { address: "10.0.0.5:22" }, "byoh[0].address", /IPv6 \(or has a port\)/],
    ["not an address", { address: "not a host!" }, "byoh[0].address", /neither an IPv4/],
    ["bad IPv4", { address: "10.0.0.300" }, "byoh[0].address", /not a valid one/],
    ["username with a space", { username: "my admin" }, "byoh[0].username", /Windows account name/],
    ["username with =", { username: "a=b" }, "byoh[0].username", /'='/],
    ["no way to verify the host key", { hostKey: undefined }, "byoh[0].hostKey", /trustOnFirstUse/],
    // `hostKey: "foo"` used to pass offline and fail only at the first connection.
    [
      "a host key that is neither a key line nor a fingerprint",
      { hostKey: "foo" },
      "byoh[0].hostKey",
      /SHA256: fingerprint/,
    ],
    [
      "password key not secret",
      { bootstrap: { passwordSecret: "pw" } },
      "byoh[0].bootstrap.passwordSecret",
      /--secret/,
    ],
  ])("%s", (_n, over, p, says) => {
    const errors = check([host(over)]);
    expect(errors.map((e) => e.path)).toContain(p);
    expect(errors.find((e) => e.path === p)?.message).toMatch(says);
  });

  test("duplicates (case-insensitive DNS names) are refused", () => {
    const errors = check([host({ address: "Win1.example.com" }), host({ address: "win1.example.com" })]);
    expect(errors).toEqual([
      expect.objectContaining({
        path: "byoh[1].address",
        message: expect.stringMatching(/listed twice \(also byoh\[0\]\)/),
      }),
    ]);
  });

  test("trustOnFirstUse and a secret bootstrap password are accepted", () => {
    expect(
      check(
        [host({ hostKey: undefined, trustOnFirstUse: true, bootstrap: { passwordSecret: "pw" } })],
        ["windows-estate:pw"],
      ),
    ).toEqual([]);
  });
});
