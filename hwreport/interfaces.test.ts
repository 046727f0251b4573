// Which declared interfaces a machine can build, as the report says it before an install.
import { describe, expect, it } from "vitest";
import type { Machine } from "../manifest/types.ts";
import { declaredInterfaces } from "./interfaces.ts";
import type { NicReport } from "./types.ts";

function nic(name: string, carrier: boolean): NicReport {
  return { name, kernelName: name, carrier } as NicReport;
}

const leader: Machine = {
  name: "leader-1",
  role: "leader",
  ports: ["eno1", "eno2", "eno3"],
  modules: [],
  reboot_policy: "Manual",
  nameservers: ["10.0.40.2"],
  interfaces: [
    {
      name: "bond0",
      bond: { ports: ["eno1", "eno2"], mode: "802.3ad" },
      addresses: [],
      routes: [],
      dhcp: false,
    },
    {
      name: "bond0.40",
      vlan: { link: "bond0", id: 40 },
      addresses: ["10.0.40.11/24"],
      routes: [],
      dhcp: false,
    },
    { name: "eno3", addresses: [], routes: [], dhcp: true },
  ],
};

describe("declaredInterfaces", () => {
  it("builds a bond and its VLAN where both members have carrier", () => {
    const r = declaredInterfaces(
      [leader],
      [nic("eno1", true), nic("eno2", true), nic("eno3", true)],
    );
    expect(r.map((i) => `${i.name} ${i.kind}: ${i.summary}`)).toEqual([
      "bond0 bond: can be built: bond members eno1 and eno2 with carrier",
      "bond0.40 vlan: can be built: bond members eno1 and eno2 with carrier",
      "eno3 port: can be built: eno3 with carrier",
    ]);
    expect(r.every((i) => i.buildable)).toBe(true);
  });

  it("says degraded when a member has no carrier, and cannot when a port is missing", () => {
    const r = declaredInterfaces([leader], [nic("eno1", true), nic("eno2", false)]);
    expect(r.map((i) => [i.name, i.buildable, i.summary])).toEqual([
      ["bond0", true, "can be built, degraded: bond members eno1 with carrier, eno2 without"],
      ["bond0.40", true, "can be built, degraded: bond members eno1 with carrier, eno2 without"],
      ["eno3", false, "cannot be built here: eno3 is not on this machine"],
    ]);
  });

  it("says an interface whose cables are all dark carries nothing", () => {
    const r = declaredInterfaces(
      [leader],
      [nic("eno1", false), nic("eno2", false), nic("eno3", false)],
    );
    expect(r[0]?.summary).toBe("can be built, but carries nothing: eno1 and eno2 have no carrier");
  });
});
