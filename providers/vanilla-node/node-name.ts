/**
 * The Node name of a vanilla Windows node, as the kubelet and kubeadm make it. The kubelet registers
 * `--hostname-override` or else Go's os.Hostname() (on Windows GetComputerNameEx(ComputerNamePhysicalDnsHostname): the
 * DNS host name, golang/go src/os/sys_windows.go), trimmed and lower-cased either way (k8s.io/component-helpers
 * node/util GetHostname). `$env:COMPUTERNAME` is the NetBIOS name instead: upper case and cut to 15 characters
 * (Microsoft Learn "Computer Names"), so it is never used for the Node. kubeadm lower-cases nodeRegistration.name
 * the same way (SetNodeRegistrationDynamicDefaults) and refuses what is not a DNS-1123 subdomain
 * (ValidateNodeRegistrationOptions). Pure.
 */

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_SUBDOMAIN_MAX = 253;

/** The Node's name: the declared one (it goes to --hostname-override) or the host's DNS host name, lower case. */
export function kubeletNodeName(declared: string | undefined, dnsHostName: string): string {
  return (declared || dnsHostName).trim().toLowerCase();
}

/**
 * Why kubeadm would refuse `name` as nodeRegistration.name (apimachinery IsDNS1123Subdomain), or undefined when it
 * takes it.
 */
export function nodeNameProblem(name: string): string | undefined {
  if (name.length === 0) return "it is empty";
  if (name.length > DNS1123_SUBDOMAIN_MAX) return `it is longer than ${DNS1123_SUBDOMAIN_MAX} characters`;
  if (!DNS1123_SUBDOMAIN.test(name))
    return "a Node name must be a lowercase RFC 1123 subdomain: lower case letters, digits, '-' and '.', starting and ending with a letter or digit";
  return undefined;
}

/**
 * The error for a host whose Node name kubeadm would refuse, or undefined. It names the host, where the name came
 * from, and the config key that fixes it (`windows-estate:nodes[<i>].name`).
 */
export function nodeNameError(
  target: string,
  declared: string | undefined,
  probe: { dnsHostname: string; hostname: string },
  nameKey: string,
): string | undefined {
  const name = kubeletNodeName(declared, probe.dnsHostname);
  const problem = nodeNameProblem(name);
  if (!problem) return undefined;
  const from = declared
    ? `${nameKey} ${JSON.stringify(declared)}`
    : `the host's DNS host name ${JSON.stringify(probe.dnsHostname)} (NetBIOS name ${JSON.stringify(probe.hostname)})`;
  const fix = declared
    ? `set ${nameKey} to such a name`
    : `set ${nameKey} to such a name (the kubelet then registers it through --hostname-override), or rename the host`;
  return `${target}: ${from} gives the Node name ${JSON.stringify(name)}, which kubeadm refuses: ${problem}; ${fix}. Nothing was changed on the host`;
}
