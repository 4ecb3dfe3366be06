import { BlockList, isIPv4 } from "net";

/** An IPv4 CIDR as written (`10.244.0.0/16`): its network address and prefix, or undefined when it does not parse. */
export function parseCidr(text: string): { address: string; prefix: number } | undefined {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(text.trim());
  if (!m || !isIPv4(m[1])) return undefined;
  const prefix = Number(m[2]);
  return prefix <= 32 ? { address: m[1], prefix } : undefined;
}

/** Whether an IPv4 address lies in a CIDR (Node's own subnet matching). */
export function cidrContains(cidr: { address: string; prefix: number }, ip: string): boolean {
  if (!isIPv4(ip)) return false;
  const list = new BlockList();
  list.addSubnet(cidr.address, cidr.prefix, "ipv4");
  return list.check(ip, "ipv4");
}

/** Two CIDRs overlap when either holds the other's network address. */
export function cidrsOverlap(a: { address: string; prefix: number }, b: { address: string; prefix: number }): boolean {
  return cidrContains(a, b.address) || cidrContains(b, a.address);
}

/** The network address of a CIDR (`10.244.0.1/16` → `10.244.0.0`): the address with its host bits cleared. */
export function networkAddress(cidr: { address: string; prefix: number }): string {
  const n = cidr.address.split(".").reduce((acc, octet) => acc * 256 + Number(octet), 0);
  const size = 2 ** (32 - cidr.prefix);
  const net = n - (n % size);
  return [24, 16, 8, 0].map((shift) => Math.floor(net / 2 ** shift) % 256).join(".");
}
