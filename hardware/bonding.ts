// /proc/net/bonding/NAME: the bonding driver's own account of a bond (the Linux kernel's
// Documentation/networking/bonding.rst, and drivers/net/bonding/bond_procfs.c which prints
// it): the mode, the port that carries an active-backup bond's traffic, the 802.3ad active
// aggregator, and for each port its MII status, its aggregator and its LACP partner. A port
// carries 802.3ad traffic only in the active aggregator; a port alone in an aggregator of
// its own has no partner (no LACPDU came back on it).
import { readFile } from "node:fs/promises";
import { join } from "node:path";

export interface BondingPort {
  readonly name: string;
  /** `up`, `down`, `going down` or `going back`. */
  readonly miiStatus: string;
  /** 802.3ad: the aggregator this port is in; null in other modes or with none. */
  readonly aggregatorId: number | null;
  /** 802.3ad: the partner system's MAC on this port; null when none answered. */
  readonly partnerMac: string | null;
}

export interface Bonding {
  /** `802.3ad`, `active-backup`, or the kernel's own words for another mode. */
  readonly mode: string;
  /** The bond has carrier: at least one port (min_links) is up. */
  readonly up: boolean;
  /** active-backup: the port that carries the traffic now. */
  readonly activePort: string | null;
  /** 802.3ad: the aggregator that carries the traffic; null when the bond has none. */
  readonly activeAggregatorId: number | null;
  /** 802.3ad: the partner of the active aggregator; null when none answered. */
  readonly partnerMac: string | null;
  readonly ports: readonly BondingPort[];
}

/** The kernel's names of the modes (bond_mode_name) that a declaration can ask for. */
const MODES: Readonly<Record<string, string>> = {
  "IEEE 802.3ad Dynamic link aggregation": "802.3ad",
  "fault-tolerance (active-backup)": "active-backup",
};

/** The LACP partner field of a port or aggregator that heard no partner. */
const NO_PARTNER = "00:00:00:00:00:00";

export function parseBonding(text: string): Bonding | null {
  let mode: string | null = null;
  let up = false;
  let activePort: string | null = null;
  let activeAggregatorId: number | null = null;
  let partnerMac: string | null = null;
  const ports: BondingPort[] = [];
  let port: { -readonly [K in keyof BondingPort]: BondingPort[K] } | null = null;
  // Which block a field belongs to: the active aggregator's, a port's partner PDU, ...
  let block: "bond" | "aggregator" | "port" | "actor" | "partner" = "bond";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (key === "Slave Interface") {
      port = { name: value, miiStatus: "down", aggregatorId: null, partnerMac: null };
      ports.push(port);
      block = "port";
    } else if (key === "Active Aggregator Info") block = "aggregator";
    else if (key === "details actor lacp pdu") block = "actor";
    else if (key === "details partner lacp pdu") block = "partner";
    else if (key === "Bonding Mode")
      mode = MODES[value.replace(/ \(fail_over_mac .*\)$/, "")] ?? value;
    else if (key === "Currently Active Slave") activePort = value === "None" ? null : value;
    else if (key === "MII Status") {
      if (port) port.miiStatus = value;
      else up = value === "up";
    } else if (key === "Aggregator ID") {
      const id = /^\d+$/.test(value) ? Number(value) : null;
      if (block === "aggregator" && !port) activeAggregatorId = id;
      else if (port) port.aggregatorId = id;
    } else if (key === "Partner Mac Address" && block === "aggregator")
      partnerMac = value === NO_PARTNER ? null : value.toLowerCase();
    else if (key === "system mac address" && block === "partner" && port)
      port.partnerMac = value === NO_PARTNER ? null : value.toLowerCase();
  }
  if (mode === null) return null;
  return { mode, up, activePort, activeAggregatorId, partnerMac, ports };
}

/** The bond's account; null when the kernel has no such bond (or no bonding driver). */
export async function readBonding(name: string, root = "/"): Promise<Bonding | null> {
  // No file: no bond of that name, which the caller reports from the link's absence.
  const text = await readFile(join(root, "proc/net/bonding", name), "utf8").catch(() => null);
  return text === null ? null : parseBonding(text);
}
