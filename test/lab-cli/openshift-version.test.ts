import { crioFor, openshiftVersionFor } from "../../lab/seed/openshift";

// The lab's OpenShift release follows from its Kubernetes through the fact tables. Expected values from WMCO's
// branches: master (WMCO 11.0.0, shipped by release-5.0) has pkg/cluster/config.go baseK8sVersion "v1.36";
// release-4.22 (10.22) "v1.35"; release-4.20 (10.20) "v1.33", and each also runs on the next minor.
test("the OpenShift release whose WMCO is the newest that accepts the lab's Kubernetes minor", () => {
  expect(openshiftVersionFor("v1.36.3")).toBe("5.0.0");
  expect(openshiftVersionFor("1.37.0")).toBe("5.0.0"); // 11.0 accepts 1.36 and 1.37
  expect(openshiftVersionFor("v1.35.2")).toBe("4.22.0"); // 10.21 (1.34–1.35) and 10.22 (1.35–1.36): the newer
  expect(openshiftVersionFor("v1.33.0")).toBe("4.20.0");
});

test("a Kubernetes minor no WMCO release accepts is refused, naming it", () => {
  expect(() => openshiftVersionFor("v1.20.0")).toThrow(
    "no OpenShift release in facts/wmco.ts ships a WMCO that accepts Kubernetes v1.20.0",
  );
});

// cri-o README, "Compatibility matrix: CRI-O ⬄ Kubernetes": CRI-O 1.x runs Kubernetes 1.x.
test("the played CRI-O is the kubelet's minor", () => {
  expect(crioFor("v1.36.3")).toBe("1.36.0");
});
