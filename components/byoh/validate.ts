import { ConfigIssue, joinPath } from "../../stacks/config-issue";
import { ByohHostConfig } from "../../stacks/schema/byoh";
import { SSH_PORT } from "../../facts/wmco";
import { provisionedName } from "./hosts";
import { BAD_USERNAME, createdEntryIssues, givenHostIssues, givenHostMissing } from "../provisioning/validate";

/**
 * Checks `windows-estate:byoh` beyond its shape: addresses WMCO accepts (IPv4 or a DNS name; it rejects IPv6),
 * no duplicates (one ConfigMap key per host), usernames WMCO can parse, and a way to verify each host's SSH key.
 */
export function validateByoh(hosts: readonly ByohHostConfig[], secretKeys: ReadonlySet<string>): ConfigIssue[] {
  const errors: ConfigIssue[] = [];
  const seen = new Map<string, number>();
  const names = new Map<string, number>();
  hosts.forEach((h, i) => {
    const at = (...p: (string | number)[]) => joinPath(["byoh", i, ...p]);
    if (h.aws || h.azure) {
      errors.push(...createdEntryIssues(h, at, secretKeys));
      for (const n of Array.from({ length: h.count }, (_, k) => provisionedName(h.name ?? "", h.count, k + 1))) {
        const first = names.get(n);
        if (first !== undefined && h.name)
          errors.push({ path: at("name"), message: `${n} is also made by byoh[${first}]; names must be unique` });
        else names.set(n, i);
      }
      return;
    }
    if (h.address === undefined || h.username === undefined) {
      errors.push(givenHostMissing(h, at, "the administrator WMCO logs in as"));
      return;
    }
    if (h.name !== undefined || h.count !== 1)
      errors.push({
        path: at(h.name !== undefined ? "name" : "count"),
        message:
          "applies to hosts this stack creates (with an aws or azure block); a host given by address is one host",
      });
    errors.push(
      ...givenHostIssues({ ...h, address: h.address }, "byoh", i, seen, {
        ipv6: "WMCO accepts only an IPv4 address or a DNS name",
        hostKey:
          "host keys are always verified: set hostKey to the host's public key line or SHA256 fingerprint (`ssh-keyscan <host> | ssh-keygen -lf -`), or set trustOnFirstUse: true to pin it at first contact",
        pin: "must be an OpenSSH public-key line (`ssh-ed25519 AAAA…`) or a SHA256: fingerprint (`ssh-keyscan <host> | ssh-keygen -lf -`)",
      }),
    );
    if (BAD_USERNAME.test(h.username)) {
      errors.push({
        path: at("username"),
        message: `${JSON.stringify(h.username)} cannot be a Windows account name WMCO parses (no spaces, '=', or any of "/\\[]:;|,+*?<>@)`,
      });
    }
    if (h.port !== SSH_PORT) {
      errors.push({
        path: at("port"),
        message: `is ${h.port}, but WMCO always connects to Windows nodes on port ${SSH_PORT} (pkg/windows/connectivity.go); make sshd listen on ${SSH_PORT} and remove port`,
      });
    }
    const ref = h.bootstrap?.passwordSecret;
    if (ref !== undefined && !secretKeys.has(`windows-estate:${ref}`)) {
      errors.push({
        path: at("bootstrap", "passwordSecret"),
        message: `names windows-estate:${ref}, which is not set as a secret; run \`pulumi config set --secret windows-estate:${ref} <password>\``,
      });
    }
  });
  return errors;
}
