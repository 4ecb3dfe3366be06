import * as fs from "fs";
import * as path from "path";
import {
  buildPortForwardRole,
  buildPortForwardRoleBinding,
  buildRelayConfigMap,
  buildRelayDeployment,
} from "../../../components/node-access/relay-objects";
import { validateObject } from "../../helpers/schemas";

const NS = "openshift-windows-machine-config-operator";
const PROGRAM = fs.readFileSync(
  path.join(__dirname, "..", "..", "..", "components", "node-access", "relay-proxy.js"),
  "utf8",
);

test.each([
  ["ConfigMap", buildRelayConfigMap(NS, PROGRAM)],
  ["Deployment", buildRelayDeployment(NS, "registry.example.com/ubi9/nodejs-22-minimal:1", PROGRAM)],
  ["Role", buildPortForwardRole(NS)],
  [
    "RoleBinding",
    buildPortForwardRoleBinding(NS, [
      { kind: "Group", name: "platform-ci" },
      { kind: "ServiceAccount", name: "pulumi", namespace: "pulumi-operator" },
    ]),
  ],
])("the relay's %s is valid against its Kubernetes schema", (_k, o) => {
  expect(validateObject(o, { closed: true })).toBe("");
});

test("the relay holds no key: no Secret volume, no service account token, no privileges", () => {
  const d = buildRelayDeployment(NS, "img", PROGRAM);
  const pod = d.spec.template.spec;
  expect(pod.volumes).toEqual([{ name: "program", configMap: { name: "windows-estate-node-relay" } }]);
  expect(pod.automountServiceAccountToken).toBe(false);
  expect(pod.containers[0].securityContext).toEqual({
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ["ALL"] },
  });
  expect(pod.containers[0].env).toContainEqual({ name: "RELAY_ALLOWED_PORTS", value: "22" });
});

test("a new relay program rolls the pod; the same program does not", () => {
  const a = buildRelayDeployment(NS, "img", PROGRAM).spec.template.metadata.annotations;
  expect(buildRelayDeployment(NS, "img", PROGRAM).spec.template.metadata.annotations).toEqual(a);
  expect(buildRelayDeployment(NS, "img", PROGRAM + "\n// changed").spec.template.metadata.annotations).not.toEqual(a);
});

test("port-forward RBAC: get and create on pods/portforward (WebSocket upgrades are authorized as create from Kubernetes 1.35, kubernetes PR #134577)", () => {
  expect(buildPortForwardRole(NS).rules).toEqual([
    { apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] },
    { apiGroups: [""], resources: ["pods/portforward"], verbs: ["get", "create"] },
  ]);
});
