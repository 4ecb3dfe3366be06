// The stand-in's rules for names (see index.js): what a Windows host calls itself, and the Node name the kubelet and
// kubeadm make of it (audit rows 3 and 8).

/** MAX_COMPUTERNAME_LENGTH (winbase.h): the longest NetBIOS computer name. */
const MAX_COMPUTERNAME_LENGTH = 15;

/** DNS-1123 subdomain as apimachinery checks it (validation.go dns1123SubdomainFmt, DNS1123SubdomainMaxLength). */
const DNS1123_SUBDOMAIN_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MAX = 253;

/** @type {{ id: string, area: string, rule: string, source: string, rows: number[] }[]} */
const RULES = [
  {
    id: "names.netbios",
    area: "names",
    rule:
      "$env:COMPUTERNAME is the NetBIOS name: the DNS host name's leftmost label in upper case, cut to " +
      "MAX_COMPUTERNAME_LENGTH (15) characters when longer (DNS host name corporate-mail-server gives corporate-mail-).",
    source:
      "Microsoft Learn, sysinfo 'Computer Names' (NetBIOS name: OEM representation of the DNS host name up to " +
      "MAX_COMPUTERNAME_LENGTH, truncated when longer; upper case by convention); COMPUTER_NAME_FORMAT " +
      "ComputerNameNetBIOS; DnsHostnameToComputerName (leftmost label truncated to 15 bytes)",
    rows: [8],
  },
  {
    id: "names.os-hostname",
    area: "names",
    rule:
      "Go's os.Hostname on Windows is GetComputerNameEx(ComputerNamePhysicalDnsHostname): the DNS host name, case " +
      "kept, never truncated. [System.Net.Dns]::GetHostName() (Winsock gethostname) reads the same name; the two " +
      "differ only inside a failover cluster's virtual server.",
    source:
      "golang/go src/os/sys_windows.go hostname; Microsoft Learn GetComputerNameExA (ComputerNameDnsHostname vs " +
      "ComputerNamePhysicalDnsHostname); .NET Framework System.Net.Dns.GetHostName (ws2_32 gethostname)",
    rows: [8],
  },
  {
    id: "names.kubelet-node-name",
    area: "names",
    rule: "The kubelet's Node name is --hostname-override when given, else os.Hostname(), either one trimmed and lower-cased.",
    source:
      "kubernetes cmd/kubelet/app/server.go run (nodeutil.GetHostname(s.HostnameOverride)); " +
      "staging/src/k8s.io/component-helpers/node/util GetHostname (strings.TrimSpace, strings.ToLower)",
    rows: [3, 8],
  },
  {
    id: "names.kubeadm-node-name",
    area: "names",
    rule:
      "kubeadm join defaults nodeRegistration.name with GetHostname (the host name when empty; trimmed, lower case), " +
      "then refuses it unless it is a DNS-1123 subdomain of at most 253 characters: lower case letters, digits, '-' " +
      "and '.', starting and ending with a letter or digit (so no '_').",
    source:
      "kubernetes cmd/kubeadm/app/util/config/initconfiguration.go SetNodeRegistrationDynamicDefaults; " +
      "cmd/kubeadm/app/apis/kubeadm/validation/validation.go ValidateNodeRegistrationOptions; " +
      "staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go IsDNS1123Subdomain, RegexError, MaxLenError",
    rows: [3],
  },
];

/** What `$env:COMPUTERNAME` is on a host whose DNS host name is `dnsHostName` (rule names.netbios). */
function netbiosName(dnsHostName) {
  return String(dnsHostName).split(".")[0].toUpperCase().slice(0, MAX_COMPUTERNAME_LENGTH);
}

/** The Node name the kubelet registers with `--hostname-override` (or without, undefined/"") (rule names.kubelet-node-name). */
function kubeletNodeName(override, dnsHostName) {
  const name = override ? String(override) : String(dnsHostName);
  return name.trim().toLowerCase();
}

/** The Node name the kubelet registers without --hostname-override on a host named `dnsHostName`. */
function kubeletDefaultNodeName(dnsHostName) {
  return kubeletNodeName(undefined, dnsHostName);
}

/**
 * kubeadm's refusal of `nodeRegistration.name` (after its defaulting: trimmed, lower case), in its words
 * (field.Invalid's "<path>: Invalid value: ...", one per IsDNS1123Subdomain error, joined as ToAggregate joins them),
 * or undefined when kubeadm accepts it (rule names.kubeadm-node-name).
 */
function kubeadmNodeNameProblem(name) {
  const n = String(name).trim().toLowerCase();
  const errs = [];
  if (n.length > DNS1123_SUBDOMAIN_MAX) errs.push(`must be no more than ${DNS1123_SUBDOMAIN_MAX} characters`);
  if (!DNS1123_SUBDOMAIN.test(n))
    errs.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start " +
        `and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN_FMT}')`,
    );
  if (errs.length === 0) return undefined;
  const all = errs.map((e) => `nodeRegistration.name: Invalid value: ${JSON.stringify(n)}: ${e}`);
  // k8s.io/apimachinery util/errors aggregate.Error: one error alone, several as "[a, b]".
  return all.length === 1 ? all[0] : `[${all.join(", ")}]`;
}

module.exports = { RULES, netbiosName, kubeletNodeName, kubeletDefaultNodeName, kubeadmNodeNameProblem };
