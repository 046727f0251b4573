// NetworkReady as an operator reads it: which interface is wrong, how, and what to do; the
// most severe kind of problem is the reason.
import { describe, expect, it } from "vitest";
import { NO_NETWORK } from "../common/network-declaration.ts";
import { ISSUE_EXAMPLE } from "../hardware/network/fixtures/declarations.ts";
import {
  appliedExample,
  EXAMPLE_PLAN,
  member,
  observedExample,
} from "../hardware/network/fixtures/observed.ts";
import { planNetwork } from "../hardware/network/plan.ts";
import { networkReadyCondition } from "./network-ready.ts";

const condition = (...args: Parameters<typeof networkReadyCondition>) =>
  networkReadyCondition(...args);

describe("networkReadyCondition", () => {
  it("is True Configured when every interface is up as declared", () => {
    expect(condition(EXAMPLE_PLAN, appliedExample(), observedExample())).toEqual({
      status: "True",
      reason: "Configured",
      message: "every declared interface is up with its addresses: bond0, bond0.40 and eno3",
    });
  });

  it("is True NoInterfacesDeclared without a declaration", () => {
    const plan = planNetwork(NO_NETWORK, []);
    expect(condition(plan, { outcomes: [] }, { interfaces: [], nameservers: [] })).toEqual({
      status: "True",
      reason: "NoInterfacesDeclared",
      message:
        "the machine declares no interfaces: its ports are up, and nothing else is configured",
    });
  });

  it("is BondDegraded naming the port without carrier (active-backup)", () => {
    const network = observedExample({
      bond0: {
        bond: {
          mode: "active-backup",
          partner: null,
          members: [
            member("eno1", { partner: null }),
            member("eno2", { carrier: false, active: false, partner: null }),
          ],
        },
      },
    });
    expect(condition(EXAMPLE_PLAN, appliedExample(), network)).toEqual({
      status: "False",
      reason: "BondDegraded",
      message:
        "bond0: eno2 has no carrier, traffic runs on eno1 alone; check eno2's cable and the switch port",
    });
  });

  it("takes a standing-by active-backup port for healthy", () => {
    const network = observedExample({
      bond0: {
        bond: {
          mode: "active-backup",
          partner: null,
          members: [
            member("eno1", { partner: null }),
            member("eno2", { active: false, partner: null }),
          ],
        },
      },
    });
    expect(condition(EXAMPLE_PLAN, appliedExample(), network).status).toBe("True");
  });

  it("is BondDegraded for an 802.3ad port no LACP partner answers on, or none at all", () => {
    const one = observedExample({
      bond0: {
        bond: {
          mode: "802.3ad",
          partner: true,
          members: [member("eno1"), member("eno2", { active: false, partner: false })],
        },
      },
    });
    expect(condition(EXAMPLE_PLAN, appliedExample(), one).message).toBe(
      "bond0: no LACP partner answers on eno2, traffic runs on eno1 alone; check the switch's port-channel configuration",
    );
    const none = observedExample({
      bond0: {
        bond: {
          mode: "802.3ad",
          partner: false,
          members: [
            member("eno1", { partner: false }),
            member("eno2", { active: false, partner: false }),
          ],
        },
      },
    });
    expect(condition(EXAMPLE_PLAN, appliedExample(), none)).toMatchObject({
      reason: "BondDegraded",
      message:
        "bond0: no LACP partner answers on eno1 or eno2, traffic runs on eno1 alone; check the switch's port-channel configuration",
    });
  });

  it("is InterfaceMissing first, naming every missing port and what is built on it", () => {
    const plan = planNetwork(ISSUE_EXAMPLE, [
      { name: "eno1", carrier: true },
      { name: "eno3", carrier: false },
    ]);
    const network = observedExample({
      bond0: {
        bond: {
          mode: "802.3ad",
          partner: true,
          members: [
            member("eno1"),
            member("eno2", { present: false, joined: false, carrier: false, active: false }),
          ],
        },
      },
      eno3: { state: "down", carrier: false, addresses: [] },
    });
    const c = condition(
      plan,
      appliedExample((o) => (o.step.op === "dhcp" ? { result: "no-lease", message: "" } : {})),
      network,
    );
    expect(c.reason).toBe("InterfaceMissing");
    expect(c.message).toBe(
      [
        "bond0: its port eno2 does not exist on this machine; check the NIC's driver with the hardware report, or correct the name in the manifest",
        "eno3 has no carrier; connect the cable, or check the switch port",
        "eno3: no DHCP server answered, and udhcpc keeps asking; check the DHCP server on eno3's network, or declare a static address",
      ].join("; "),
    );
  });

  it("says a bond none of whose ports exists is not built, nor the VLAN on it", () => {
    const plan = planNetwork(ISSUE_EXAMPLE, [{ name: "eno3", carrier: true }]);
    const network = observedExample({
      bond0: { state: "missing" },
      "bond0.40": { state: "missing" },
    });
    expect(condition(plan, appliedExample(), network).message).toBe(
      [
        "bond0 is not built: none of its ports eno1, eno2 exists on this machine; check the NIC's driver with the hardware report, or correct the name in the manifest",
        "bond0.40 is not built: its link bond0 is not built: none of its ports eno1, eno2 exists on this machine; check the NIC's driver with the hardware report, or correct the name in the manifest",
      ].join("; "),
    );
  });

  it("says a bond the kernel would not create, with the driver to look for", () => {
    const applied = appliedExample((o) =>
      o.step.op === "create-bond"
        ? { result: "failed", message: "RTNETLINK answers: Operation not supported" }
        : {},
    );
    const network = observedExample({
      bond0: { state: "missing" },
      "bond0.40": { state: "missing" },
    });
    expect(condition(EXAMPLE_PLAN, applied, network)).toMatchObject({
      reason: "InterfaceMissing",
      message:
        "bond0 was not created (RTNETLINK answers: Operation not supported); check that the release carries the bonding driver (its boot-modules.json); bond0.40 was not created; check that the release carries the 8021q driver (its boot-modules.json)",
    });
  });

  it("is NoCarrier for a bond without any port with carrier, not for the VLAN on it", () => {
    const network = observedExample({
      bond0: {
        state: "down",
        carrier: false,
        bond: {
          mode: "802.3ad",
          partner: false,
          members: [
            member("eno1", { carrier: false, active: false }),
            member("eno2", { carrier: false, active: false }),
          ],
        },
      },
      "bond0.40": { state: "down", carrier: false },
    });
    expect(condition(EXAMPLE_PLAN, appliedExample(), network)).toEqual({
      status: "False",
      reason: "NoCarrier",
      message:
        "bond0 has no carrier: none of its ports eno1 and eno2 has one; connect the cables, or check the switch ports",
    });
  });

  it("is AddressConflict for an IPv4 address another host answers for, and an IPv6 one DAD failed", () => {
    const applied = appliedExample((o) =>
      o.step.op === "probe-address"
        ? { result: "taken", message: "", holder: "52:54:00:00:00:09" }
        : o.step.op === "add-address" && o.step.address.startsWith("10.")
          ? { result: "skipped", message: "another host holds 10.0.40.11" }
          : {},
    );
    const network = observedExample({
      "bond0.40": {
        addresses: [{ cidr: "fd00:40::11/64", tentative: true, dadFailed: true }],
      },
    });
    expect(condition(EXAMPLE_PLAN, applied, network)).toEqual({
      status: "False",
      reason: "AddressConflict",
      message: [
        "bond0.40: 10.0.40.11/24 is held by another host (52:54:00:00:00:09) and is not configured; find the host that holds it, or give this machine another address in the manifest",
        "bond0.40: fd00:40::11/64 is held by another host (IPv6 duplicate address detection failed) and is not used; find the host that holds it, or give this machine another address in the manifest",
      ].join("; "),
    });
  });

  it("is StepFailed for a route the kernel refused, after every other kind", () => {
    const applied = appliedExample((o) =>
      o.step.op === "add-route"
        ? { result: "failed", message: "RTNETLINK answers: Network is unreachable" }
        : {},
    );
    expect(condition(EXAMPLE_PLAN, applied, observedExample())).toEqual({
      status: "False",
      reason: "StepFailed",
      message:
        "bond0.40: route to 0.0.0.0/0 via 10.0.40.1 failed (RTNETLINK answers: Network is unreachable); read the boot's network lines on the console",
    });
  });
});
