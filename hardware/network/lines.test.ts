// The console's lines for the declared network: one per interface, one per step that did
// not do its work.
import { describe, expect, it } from "vitest";
import { ISSUE_EXAMPLE } from "./fixtures/declarations.ts";
import { appliedExample, EXAMPLE_PLAN, member, observedExample } from "./fixtures/observed.ts";
import { and, networkLines } from "./lines.ts";
import { planNetwork } from "./plan.ts";

describe("networkLines", () => {
  it("says each interface's state and addresses, a bond's ports and the DHCP lease", () => {
    expect(networkLines(EXAMPLE_PLAN, appliedExample(), observedExample())).toEqual([
      "network bond0: 802.3ad, eno1 and eno2 carry traffic",
      "network bond0.40: up, 10.0.40.11/24 fd00:40::11/64",
      "network eno3: up, 10.0.7.20/24 by DHCP",
    ]);
  });

  it("says which bond port carries nothing and why", () => {
    const network = observedExample({
      bond0: {
        bond: {
          mode: "802.3ad",
          partner: true,
          members: [member("eno1"), member("eno2", { active: false, partner: false })],
        },
      },
    });
    expect(networkLines(EXAMPLE_PLAN, appliedExample(), network)[0]).toBe(
      "network bond0: 802.3ad, eno1 carries traffic; eno2 has no LACP partner",
    );
    const backup = observedExample({
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
    expect(networkLines(EXAMPLE_PLAN, appliedExample(), backup)[0]).toBe(
      "network bond0: active-backup, eno1 carries traffic; eno2 stands by",
    );
  });

  it("says what was not built, a conflict, a DHCP server that did not answer, a failed step", () => {
    const plan = planNetwork(ISSUE_EXAMPLE, [{ name: "eno3", carrier: false }]);
    const applied = {
      outcomes: plan.steps.map((step) =>
        step.op === "dhcp"
          ? { step, result: "no-lease" as const, message: "no DHCP server answered" }
          : { step, result: "failed" as const, message: "`ip link set dev eno3 up` failed" },
      ),
    };
    const network = observedExample({
      bond0: { state: "missing" },
      "bond0.40": { state: "missing" },
      eno3: { state: "down", carrier: false, addresses: [] },
    });
    expect(networkLines(plan, applied, network)).toEqual([
      "network bond0: not built: none of its ports eno1, eno2 exists on this machine",
      "network bond0.40: not built: its link bond0 is not built: none of its ports eno1, eno2 exists on this machine",
      "network eno3: no carrier, no DHCP lease yet",
      "network eno3: bringing it up: `ip link set dev eno3 up` failed",
      "network nameservers 10.0.40.2: `ip link set dev eno3 up` failed",
    ]);
    const taken = appliedExample((o) =>
      o.step.op === "probe-address"
        ? { result: "taken", message: "another host (52:54:00:00:00:09) answers for 10.0.40.11" }
        : {},
    );
    expect(networkLines(EXAMPLE_PLAN, taken, observedExample())[3]).toBe(
      "network bond0.40: 10.0.40.11/24: another host (52:54:00:00:00:09) answers for 10.0.40.11",
    );
  });
});

describe("and", () => {
  it("joins names as a sentence does", () => {
    expect([and([]), and(["a"]), and(["a", "b"]), and(["a", "b", "c"])]).toEqual([
      "",
      "a",
      "a and b",
      "a, b and c",
    ]);
  });
});
