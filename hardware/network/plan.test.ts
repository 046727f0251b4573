// The declared network's plan: the steps in the order the kernel needs them, and what
// cannot be built on this machine.
import { describe, expect, it } from "vitest";
import { NO_NETWORK } from "../../common/network-declaration.ts";
import { ISSUE_EXAMPLE, iface } from "./fixtures/declarations.ts";
import { type PresentLink, planNetwork } from "./plan.ts";

const links = (...names: string[]): PresentLink[] =>
  names.map((n) => ({ name: n.replace(/!$/, ""), carrier: !n.endsWith("!") }));

describe("planNetwork", () => {
  it("builds the issue's example in the kernel's order", () => {
    const plan = planNetwork(ISSUE_EXAMPLE, links("lo!", "eno1", "eno2", "eno3"));
    expect(plan.steps).toEqual([
      { op: "load-module", module: "bonding", parameters: ["max_bonds=0"] },
      { op: "load-module", module: "8021q", parameters: [] },
      { op: "set-up", name: "eno3" },
      { op: "create-bond", name: "bond0", mode: "802.3ad" },
      { op: "set-mtu", name: "bond0", mtu: 9000 },
      { op: "enslave", name: "bond0", port: "eno1" },
      { op: "enslave", name: "bond0", port: "eno2" },
      { op: "set-up", name: "bond0" },
      { op: "await-bond", name: "bond0", mode: "802.3ad", ports: ["eno1", "eno2"] },
      { op: "create-vlan", name: "bond0.40", link: "bond0", id: 40 },
      { op: "set-up", name: "bond0.40" },
      { op: "probe-address", name: "bond0.40", address: "10.0.40.11/24" },
      { op: "add-address", name: "bond0.40", address: "10.0.40.11/24" },
      { op: "add-address", name: "bond0.40", address: "fd00:40::11/64" },
      { op: "await-dad", name: "bond0.40", addresses: ["fd00:40::11/64"] },
      { op: "add-route", name: "bond0.40", to: "0.0.0.0/0", via: "10.0.40.1" },
      { op: "dhcp", name: "eno3" },
      { op: "write-nameservers", file: "/run/liken/resolv.conf", nameservers: ["10.0.40.2"] },
    ]);
    expect(
      plan.interfaces.map((i) => [i.declared.name, i.kind, i.below, i.ports, i.unbuilt]),
    ).toEqual([
      ["bond0", "bond", [], ["eno1", "eno2"], null],
      ["bond0.40", "vlan", ["bond0"], [], null],
      ["eno3", "port", [], [], null],
    ]);
    expect(plan.nameservers).toEqual(["10.0.40.2"]);
  });

  it("builds a bond on the ports that exist, and waits only for those with carrier", () => {
    const plan = planNetwork(ISSUE_EXAMPLE, links("eno1!", "eno3"));
    expect(plan.interfaces[0]).toMatchObject({
      ports: ["eno1"],
      missingPorts: ["eno2"],
      unbuilt: null,
    });
    expect(plan.steps.filter((s) => s.op === "enslave")).toEqual([
      { op: "enslave", name: "bond0", port: "eno1" },
    ]);
    expect(plan.steps.find((s) => s.op === "await-bond")).toMatchObject({ ports: [] });
    expect(plan.interfaces[1]?.unbuilt).toBeNull();
  });

  it("builds nothing on a bond none of whose ports exists, and says so for the VLAN on it", () => {
    const plan = planNetwork(ISSUE_EXAMPLE, links("eno3"));
    expect(plan.interfaces.map((i) => [i.declared.name, i.missingPorts, i.unbuilt])).toEqual([
      ["bond0", ["eno1", "eno2"], "none of its ports eno1, eno2 exists on this machine"],
      [
        "bond0.40",
        ["eno1", "eno2"],
        "its link bond0 is not built: none of its ports eno1, eno2 exists on this machine",
      ],
      ["eno3", [], null],
    ]);
    expect(plan.steps.map((s) => `${s.op} ${"name" in s ? s.name : ""}`)).toEqual([
      "set-up eno3",
      "dhcp eno3",
      "write-nameservers ",
    ]);
  });

  it("plans nothing for no declaration, and only the nameservers for nameservers alone", () => {
    expect(planNetwork(NO_NETWORK, links("eno1"))).toEqual({
      interfaces: [],
      steps: [],
      nameservers: [],
    });
    expect(planNetwork({ interfaces: [], nameservers: ["fd00::53"] }, []).steps).toEqual([
      { op: "write-nameservers", file: "/run/liken/resolv.conf", nameservers: ["fd00::53"] },
    ]);
  });

  it("marks a missing port missing, and a VLAN on it; builds a VLAN on a port of `ports` alone", () => {
    const plan = planNetwork(
      {
        interfaces: [
          iface({ name: "eno9.7", vlan: { link: "eno9", id: 7 }, addresses: ["10.7.0.2/24"] }),
          iface({ name: "eno1.8", vlan: { link: "eno1", id: 8 }, mtu: 1400 }),
          iface({ name: "eno5", addresses: ["10.5.0.2/24"] }),
        ],
        nameservers: [],
      },
      links("eno1"),
    );
    expect(plan.interfaces.map((i) => [i.declared.name, i.missingPorts, i.unbuilt])).toEqual([
      ["eno9.7", ["eno9"], "its link eno9 does not exist on this machine"],
      ["eno1.8", [], null],
      ["eno5", ["eno5"], "eno5 does not exist on this machine"],
    ]);
    expect(plan.steps).toEqual([
      { op: "load-module", module: "8021q", parameters: [] },
      { op: "create-vlan", name: "eno1.8", link: "eno1", id: 8 },
      { op: "set-mtu", name: "eno1.8", mtu: 1400 },
      { op: "set-up", name: "eno1.8" },
    ]);
  });

  it("creates a bond before a VLAN declared ahead of it, and never a VLAN on a VLAN", () => {
    const plan = planNetwork(
      {
        interfaces: [
          iface({ name: "bond1.5", vlan: { link: "bond1", id: 5 } }),
          iface({ name: "bond1.5.6", vlan: { link: "bond1.5", id: 6 } }),
          iface({ name: "bond1", bond: { ports: ["eno1", "eno2"], mode: "active-backup" } }),
        ],
        nameservers: [],
      },
      links("eno1", "eno2"),
    );
    expect(plan.interfaces[1]?.unbuilt).toBe(
      "its link bond1.5 is a VLAN; a VLAN goes on a port or a bond",
    );
    const ops = plan.steps.map((s) => `${s.op} ${"name" in s ? s.name : ""}`);
    expect(ops.indexOf("create-vlan bond1.5")).toBeGreaterThan(ops.indexOf("set-up bond1"));
    expect(ops.indexOf("await-bond bond1")).toBeLessThan(ops.indexOf("create-vlan bond1.5"));
    expect(ops).not.toContain("create-vlan bond1.5.6");
  });

  it("sets a port's MTU before it is up, probes only IPv4, and routes after the IPv6 detection", () => {
    const plan = planNetwork(
      {
        interfaces: [
          iface({
            name: "eno1",
            mtu: 9000,
            addresses: ["fd00:1::2/64", "10.1.0.2/24", "fd00:2::2/64"],
            routes: [
              { to: "::/0", via: "fd00:1::1" },
              { to: "10.9.0.0/16", via: "10.1.0.1" },
            ],
            dhcp: true,
          }),
        ],
        nameservers: ["10.1.0.53", "fd00:1::53"],
      },
      links("eno1"),
    );
    expect(plan.steps).toEqual([
      { op: "set-mtu", name: "eno1", mtu: 9000 },
      { op: "set-up", name: "eno1" },
      { op: "add-address", name: "eno1", address: "fd00:1::2/64" },
      { op: "probe-address", name: "eno1", address: "10.1.0.2/24" },
      { op: "add-address", name: "eno1", address: "10.1.0.2/24" },
      { op: "add-address", name: "eno1", address: "fd00:2::2/64" },
      { op: "await-dad", name: "eno1", addresses: ["fd00:1::2/64", "fd00:2::2/64"] },
      { op: "add-route", name: "eno1", to: "::/0", via: "fd00:1::1" },
      { op: "add-route", name: "eno1", to: "10.9.0.0/16", via: "10.1.0.1" },
      { op: "dhcp", name: "eno1" },
      {
        op: "write-nameservers",
        file: "/run/liken/resolv.conf",
        nameservers: ["10.1.0.53", "fd00:1::53"],
      },
    ]);
  });
});
