// /proc/net/bonding/NAME as the kernel prints it (drivers/net/bonding/bond_procfs.c, 6.1):
// the texts in fixtures/bonding follow its format line for line.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseBonding } from "./bonding.ts";

const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, "fixtures/bonding", name), "utf8");

describe("parseBonding", () => {
  it("reads an 802.3ad bond whose two ports aggregate with one partner", () => {
    expect(parseBonding(fixture("802.3ad-aggregated.txt"))).toEqual({
      mode: "802.3ad",
      up: true,
      activePort: null,
      activeAggregatorId: 1,
      partnerMac: "52:54:00:ab:cd:01",
      ports: [
        { name: "eno1", miiStatus: "up", aggregatorId: 1, partnerMac: "52:54:00:ab:cd:01" },
        { name: "eno2", miiStatus: "up", aggregatorId: 1, partnerMac: "52:54:00:ab:cd:01" },
      ],
    });
  });

  it("reads an 802.3ad bond with no partner: each port its own aggregator, one active", () => {
    const bond = parseBonding(fixture("802.3ad-no-partner.txt"));
    expect(bond?.activeAggregatorId).toBe(1);
    expect(bond?.partnerMac).toBeNull();
    expect(bond?.ports).toEqual([
      { name: "eno1", miiStatus: "up", aggregatorId: 1, partnerMac: null },
      { name: "eno2", miiStatus: "up", aggregatorId: 2, partnerMac: null },
    ]);
  });

  it("reads an active-backup bond: the active port, and a port that is down", () => {
    expect(parseBonding(fixture("active-backup-one-down.txt"))).toEqual({
      mode: "active-backup",
      up: true,
      activePort: "eno2",
      activeAggregatorId: null,
      partnerMac: null,
      ports: [
        { name: "eno1", miiStatus: "down", aggregatorId: null, partnerMac: null },
        { name: "eno2", miiStatus: "up", aggregatorId: null, partnerMac: null },
      ],
    });
  });

  it("reads a bond without ports, and no active slave, and says null for what is not a bond", () => {
    const empty = [
      "Ethernet Channel Bonding Driver: v6.1.0-57-amd64",
      "",
      "Bonding Mode: fault-tolerance (active-backup) (fail_over_mac active)",
      "Primary Slave: None",
      "Currently Active Slave: None",
      "MII Status: down",
      "",
    ].join("\n");
    expect(parseBonding(empty)).toEqual({
      mode: "active-backup",
      up: false,
      activePort: null,
      activeAggregatorId: null,
      partnerMac: null,
      ports: [],
    });
    expect(parseBonding("")).toBeNull();
    expect(parseBonding("Bonding Mode: load balancing (round-robin)\n")?.mode).toBe(
      "load balancing (round-robin)",
    );
  });

  it("reads an 802.3ad bond that has no active aggregator", () => {
    const text = fixture("802.3ad-no-partner.txt").replace(
      /Active Aggregator Info:\n(\t.*\n)+/,
      "bond bond0 has no active aggregator\n",
    );
    const bond = parseBonding(text);
    expect(bond?.activeAggregatorId).toBeNull();
    expect(bond?.ports.map((p) => p.aggregatorId)).toEqual([1, 2]);
  });
});
