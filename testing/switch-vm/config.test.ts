import { describe, expect, it } from "vitest";
import { configWords, fullConfig, nicCount } from "./config.ts";
import { switchMac } from "./start.ts";

describe("a switch VM's configuration", () => {
  it("goes to the VM as kernel command line words, defaults filled in", () => {
    expect(
      configWords({ downlinks: 2, lag: "802.3ad", vlans: [40, 41], uplink: true, mtu: 9000 }),
    ).toEqual([
      "sw.name=switch",
      "sw.role=switch",
      "sw.downlinks=2",
      "sw.lag=802.3ad",
      "sw.vlans=40,41",
      "sw.uplink=1",
      "sw.mtu=9000",
      "sw.address=",
    ]);
    expect(
      configWords({ name: "host", role: "host", downlinks: 1, address: "10.41.40.11/24" }),
    ).toEqual([
      "sw.name=host",
      "sw.role=host",
      "sw.downlinks=1",
      "sw.lag=none",
      "sw.vlans=",
      "sw.uplink=0",
      "sw.mtu=1500",
      "sw.address=10.41.40.11/24",
    ]);
  });

  it("counts the downlinks and the uplink as NICs", () => {
    expect(nicCount({ downlinks: 2, uplink: true })).toBe(3);
    expect(nicCount({ downlinks: 4 })).toBe(4);
  });

  it.each([
    [{ downlinks: 0 }, "downlinks 0 is not 1 to 8"],
    [{ downlinks: 9 }, "downlinks 9 is not 1 to 8"],
    [{ downlinks: 1, vlans: [4095] }, "VLAN 4095 is not 1 to 4094"],
    [{ downlinks: 1, vlans: [40, 40] }, "a VLAN is listed twice"],
    [{ downlinks: 1, mtu: 9217 }, "MTU 9217 is not 576 to 9216"],
    [{ downlinks: 1, address: "10.0.0.300/24" }, "address 10.0.0.300/24 is not IPv4 CIDR"],
    [{ downlinks: 1, name: "Switch 1" }, "name Switch 1 is not a short lowercase word"],
    [{ role: "host", downlinks: 1, uplink: true, address: "10.0.0.1/24" }, "a host has no uplink"],
    [{ role: "host", downlinks: 1 }, "a host needs an address"],
    [{ role: "host", downlinks: 1, vlans: [1, 2], address: "10.0.0.1/24" }, "one VLAN at most"],
    [{ role: "host", downlinks: 2, address: "10.0.0.1/24" }, "one NIC or a bond"],
  ] as const)("refuses %j: %s", (config, why) => {
    expect(() => fullConfig(config)).toThrow(why);
  });

  it("gives each switch NIC a MAC of its own: QEMU's prefix, 5c, the VM, the NIC", () => {
    expect(switchMac(0, 0)).toBe("52:54:00:5c:00:00");
    expect(switchMac(17, 2)).toBe("52:54:00:5c:11:02");
  });
});
