// A machine's declared network (docs/manifest.md, Networks): what the manifest's
// `[[machines.interfaces]]` and `nameservers` say, as the manifest checks it, identity.json
// carries it to the installed machine, and the stick and the boot agent apply it. One type
// for all three, so the disk holds the operator's words unchanged.

export type BondMode = "802.3ad" | "active-backup";

export interface BondDeclaration {
  /** Declared ports (`ports`), at least one, each in no other bond. */
  readonly ports: readonly string[];
  /** No default: it must agree with the switch ports, which only the operator knows. */
  readonly mode: BondMode;
}

export interface VlanDeclaration {
  /** A declared port that no bond holds, or a bond of the same machine. */
  readonly link: string;
  /** 1 to 4094. */
  readonly id: number;
}

export interface RouteDeclaration {
  /** A CIDR; `0.0.0.0/0` or `::/0` is the default route. */
  readonly to: string;
  /** An address of `to`'s family inside the subnet of one of the interface's static addresses. */
  readonly via: string;
}

/** A declared port (neither `bond` nor `vlan`), a bond of declared ports, or a VLAN on either. */
export interface InterfaceDeclaration {
  /** A Linux interface name: a port's, or the bond's or VLAN's to create. */
  readonly name: string;
  readonly bond?: BondDeclaration;
  readonly vlan?: VlanDeclaration;
  /**
   * 576 to 9216; absent: the kernel's default, or for a VLAN its link's. A bond's applies
   * to its ports.
   */
  readonly mtu?: number;
  /**
   * Static addresses in CIDR form, IPv4 or IPv6 (`10.0.40.11/24`, `fd00:40::11/64`), as the
   * operator wrote them: compare them by `canonicalAddress` (common/ip-address.ts).
   */
  readonly addresses: readonly string[];
  readonly routes: readonly RouteDeclaration[];
  /** An IPv4 address by DHCP (beside the static ones when both are declared). */
  readonly dhcp: boolean;
}

export interface NetworkDeclaration {
  /**
   * In the order declared, which need not be the order to build them in: a VLAN may be
   * declared before the bond it rides on. Build bonds first, then VLANs.
   */
  readonly interfaces: readonly InterfaceDeclaration[];
  /** IPv4 or IPv6 addresses, at most 3 (what resolv.conf takes). */
  readonly nameservers: readonly string[];
}

export type InterfaceKind = "port" | "bond" | "vlan";

export function interfaceKind(declared: InterfaceDeclaration): InterfaceKind {
  return declared.bond ? "bond" : declared.vlan ? "vlan" : "port";
}

/** No interface declared: DHCP where the stick needs it, nothing but the port wait on the installed machine. */
export const NO_NETWORK: NetworkDeclaration = { interfaces: [], nameservers: [] };
