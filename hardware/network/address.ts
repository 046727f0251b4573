// The few facts of an address the network's plan and its read-back need beyond
// common/ip-address.ts: its family by its spelling, the address without its prefix, and one
// spelling to compare by (the kernel prints `fd00:40::11` for the operator's `fd00:40:0::11`).
// The manifest has already checked every address a declaration holds.
import { canonicalAddress } from "../../common/ip-address.ts";

export type Family = "inet" | "inet6";

/** `10.0.40.11/24` -> inet; `fd00:40::11/64` -> inet6. */
export function familyOf(address: string): Family {
  return address.includes(":") ? "inet6" : "inet";
}

/** The address without its prefix length. */
export function hostOf(cidr: string): string {
  return cidr.split("/")[0] ?? cidr;
}

/** An address or a CIDR in one spelling; what does not read is returned as written. */
export function canonical(address: string): string {
  return canonicalAddress(address) ?? address;
}
