// The Crashes and Network lines of `inspect` for people, from an inspection built in memory
// (the CLI tests in inspect.int.test.ts read real installed images).
import { describe, expect, it } from "vitest";
import type { CrashRecord } from "../../agent/types.ts";
import { parseIdentity } from "../../formats/identity.ts";
import { parseMachineStatus } from "../../formats/machine-status.ts";
import { inspectNetwork } from "./inspect.ts";
import { renderInspection } from "./render.ts";
import type { InspectedJournal, Inspection } from "./types.ts";

const INSTALL_ID = "732ba6d2-aadd-488a-ba2e-165751dff406";

function inspection(journal: InspectedJournal | null, crashes: CrashRecord[] = []): Inspection {
  return {
    path: "disk.img",
    size: 32 * 1024 ** 3,
    claim: {
      cluster: "mycluster",
      machine: "leader-1",
      installId: INSTALL_ID,
      release: "1.0.0",
      use: "system",
      complete: true,
      createdAt: "2026-12-01T00:47:25.000Z",
      copies: 2,
    },
    partitions: [],
    slots: { a: { version: null, hashMatches: null }, b: { version: null, hashMatches: null } },
    entries: [],
    loaderConf: null,
    status: null,
    installer: null,
    identity: null,
    spec: null,
    network: { declared: null, declaredErrors: [], lastBoot: null },
    journal,
    crashes,
    problems: [],
  } as Inspection;
}

function crashesPart(i: Inspection): string {
  const out = renderInspection(i);
  return out.slice(out.indexOf("\nCrashes: ") + 1);
}

const PANIC: CrashRecord = {
  id: "a1b2c3d4e5f60718",
  time: "2026-12-01T04:51:02Z",
  bootId: "0f4c8f3e-9a51-4a8e-b2a4-6f0d1c2e3b4a",
  release: "2.0.0",
  slot: "b",
  kind: "Panic",
  lines: [
    "[   31.101234] sysrq: Trigger a crash",
    "[   31.101500] Kernel panic - not syncing: sysrq triggered crash",
    "[   31.101700] CPU: 0 PID: 412 Comm: sh Not tainted 6.1.0-27-amd64 #1  Debian 6.1.115-1",
  ],
};

describe("the Crashes lines", () => {
  const valid = (records: number, skipped = 0): InspectedJournal => ({
    valid: true,
    installId: INSTALL_ID,
    records,
    skipped,
  });

  it("says there are none", () => {
    expect(crashesPart(inspection(valid(0)))).toBe("Crashes: 0 recorded\n");
  });

  it("counts the records and shows the newest: time, release, slot and panic line", () => {
    const older = { ...PANIC, id: "1", time: "2026-11-30T10:00:00Z", release: "1.0.0", slot: "a" };
    expect(crashesPart(inspection(valid(2), [PANIC, older as CrashRecord]))).toBe(
      "Crashes: 2 recorded\n  newest 2026-12-01T04:51:02Z, release 2.0.0 slot b: Kernel panic - not syncing: sysrq triggered crash\n",
    );
  });

  it("counts torn or damaged records", () => {
    expect(crashesPart(inspection(valid(1, 3), [PANIC]))).toMatch(
      /^Crashes: 1 recorded \(3 torn or damaged records skipped\)\n/,
    );
    expect(crashesPart(inspection(valid(0, 1)))).toBe(
      "Crashes: 0 recorded (1 torn or damaged record skipped)\n",
    );
  });

  it("says when the release is unknown, and falls back to the last line without a panic line", () => {
    const oops: CrashRecord = {
      ...PANIC,
      bootId: "",
      release: null,
      slot: null,
      kind: "Oops",
      lines: ["[  842.310011] BUG: kernel NULL pointer dereference, address: 0000000000000008"],
    };
    expect(crashesPart(inspection(valid(1), [oops]))).toBe(
      "Crashes: 1 recorded\n  newest 2026-12-01T04:51:02Z, release unknown: BUG: kernel NULL pointer dereference, address: 0000000000000008\n",
    );
    expect(crashesPart(inspection(valid(1), [{ ...oops, lines: [] }]))).toContain(
      "release unknown: Oops\n",
    );
  });

  it("prints no control characters from the disk", () => {
    const evil = { ...PANIC, lines: ["[ 1.0] Kernel panic - not syncing: \u001b[2J\u0007gone"] };
    const out = crashesPart(inspection(valid(1), [evil]));
    expect(out).toContain("Kernel panic - not syncing: ?[2J?gone\n");
    expect(out.replaceAll("\n", "")).not.toMatch(/\p{Cc}/u);
  });

  it("says why there are no records: no journal, a header that does not verify, another install", () => {
    expect(crashesPart(inspection(null))).toBe("Crashes: no crash journal\n");
    expect(crashesPart(inspection({ valid: false, installId: null, records: 0, skipped: 0 }))).toBe(
      "Crashes: crash journal header not valid\n",
    );
    expect(
      crashesPart(
        inspection({
          valid: true,
          installId: "1c0ffee0-1234-4abc-8def-0123456789ab",
          records: 0,
          skipped: 0,
        }),
      ),
    ).toBe("Crashes: the crash journal belongs to another install\n");
  });
});

/** Issue 41's example as the installer writes it into identity.json. */
const DECLARED = {
  interfaces: [
    {
      name: "bond0",
      bond: { ports: ["eno1", "eno2"], mode: "802.3ad" },
      mtu: 9000,
      addresses: [],
      routes: [],
      dhcp: false,
    },
    {
      name: "bond0.40",
      vlan: { link: "bond0", id: 40 },
      addresses: ["10.0.40.11/24", "fd00:40::11/64"],
      routes: [{ to: "0.0.0.0/0", via: "10.0.40.1" }],
      dhcp: false,
    },
    { name: "eno3", addresses: [], routes: [], dhcp: true },
  ],
  nameservers: ["10.0.40.2"],
};

/** The same network as the boot agent found it, with eno2's cable pulled. */
const HELD = {
  interfaces: [
    {
      name: "bond0",
      kind: "bond",
      state: "up",
      mtu: 9000,
      addresses: [],
      dhcp: false,
      bond: {
        mode: "802.3ad",
        members: [
          { name: "eno1", carrier: true, active: true },
          { name: "eno2", carrier: false, active: false },
        ],
      },
    },
    {
      name: "bond0.40",
      kind: "vlan",
      state: "up",
      mtu: 9000,
      addresses: ["10.0.40.11/24", "fd00:40::11/64"],
      dhcp: false,
    },
    { name: "eno3", kind: "port", state: "up", mtu: 1500, addresses: [], dhcp: true },
  ],
  nameservers: ["10.0.40.2"],
};

const DEGRADED = {
  type: "NetworkReady",
  status: "False",
  reason: "BondDegraded",
  message:
    "bond0: eno2 has no carrier, traffic runs on eno1 alone; check eno2's cable and the switch port",
  lastTransitionTime: "2026-12-01T04:41:07Z",
};

/** The text of an inspection whose identity.json and status document hold these, read as inspect reads them. */
function rendered(identity: object | null, status: object | null): string {
  const id = identity && parseIdentity(JSON.stringify({ machine: "leader-1", ...identity }));
  const st =
    status &&
    parseMachineStatus(
      JSON.stringify({ kind: "MachineStatus", phase: "Running", version: "1.0.0", ...status }),
    );
  return renderInspection({
    ...inspection(null),
    identity: id,
    status: st,
    network: inspectNetwork(id, st),
  });
}

// From the Machine line's end to the Crashes line: the Network lines, or none.
function networkPart(out: string): string {
  return out.slice(out.indexOf("\n", out.indexOf("\nMachine: ") + 1) + 1, out.indexOf("Crashes: "));
}

describe("the Network lines", () => {
  it("show the declared network, and a machine not booted yet", () => {
    expect(networkPart(rendered({ network: DECLARED }, null))).toBe(
      [
        "Network (declared): nameservers 10.0.40.2",
        "  bond0     bond 802.3ad of eno1, eno2, mtu 9000",
        "  bond0.40  vlan 40 on bond0, 10.0.40.11/24 fd00:40::11/64, route 0.0.0.0/0 via 10.0.40.1",
        "  eno3      port, DHCP",
        "Network (last boot): not booted yet",
        "",
      ].join("\n"),
    );
  });

  it("show the last boot's NetworkReady and each interface as the machine held it", () => {
    const status = { conditions: [DEGRADED], network: HELD };
    expect(networkPart(rendered({ network: DECLARED }, status))).toBe(
      [
        "Network (declared): nameservers 10.0.40.2",
        "  bond0     bond 802.3ad of eno1, eno2, mtu 9000",
        "  bond0.40  vlan 40 on bond0, 10.0.40.11/24 fd00:40::11/64, route 0.0.0.0/0 via 10.0.40.1",
        "  eno3      port, DHCP",
        "Network (last boot): NetworkReady False BondDegraded: bond0: eno2 has no carrier, traffic runs on eno1 alone; check eno2's cable and the switch port",
        "  bond0     up, eno1 carries traffic, eno2 no carrier",
        "  bond0.40  up, 10.0.40.11/24 fd00:40::11/64",
        "  eno3      up, no DHCP lease",
        "",
      ].join("\n"),
    );
  });

  it("show a bond's port with carrier outside the traffic, and an interface not built", () => {
    const bond0 = HELD.interfaces[0]!;
    const held = {
      ...HELD,
      interfaces: [
        {
          ...bond0,
          bond: {
            mode: "active-backup",
            members: [
              { name: "eno1", carrier: true, active: true },
              { name: "eno2", carrier: true, active: false },
            ],
          },
        },
        { name: "bond0.40", kind: "vlan", state: "missing", mtu: null, addresses: [], dhcp: false },
      ],
    };
    expect(networkPart(rendered({ network: DECLARED }, { network: held }))).toContain(
      "Network (last boot): not reported\n  bond0     up, eno1 carries traffic, eno2 carries no traffic\n  bond0.40  missing\n",
    );
  });

  it("are not there for an install from before networks, booted or not, or one that declares none", () => {
    const older = { cluster: "mycluster", ports: ["eno1"] };
    expect(networkPart(rendered(older, null))).toBe("");
    expect(networkPart(rendered(older, { conditions: [] }))).toBe("");
    const none = { network: { interfaces: [], nameservers: [] } };
    const ready = { ...DEGRADED, status: "True", reason: "NoInterfacesDeclared", message: "" };
    expect(networkPart(rendered(none, { conditions: [ready], network: null }))).toBe("");
    expect(networkPart(rendered(null, null))).toBe("");
  });

  it("show the last boot's network when identity.json cannot be read or declares none", () => {
    const none = { network: { interfaces: [], nameservers: [] } };
    expect(networkPart(rendered(none, { conditions: [DEGRADED], network: HELD }))).toMatch(
      /^Network \(last boot\): NetworkReady False BondDegraded: /,
    );
    expect(networkPart(rendered(null, { conditions: [DEGRADED], network: HELD }))).toMatch(
      /^Network \(last boot\): NetworkReady False BondDegraded: .*\n {2}bond0 {5}up, eno1 carries traffic, eno2 no carrier\n/,
    );
  });

  it("show what reads of a declared network, and say the machine applies none of it", () => {
    const [bond0, vlan, eno3] = DECLARED.interfaces;
    const network = {
      interfaces: [bond0, { ...vlan, vlan: { link: "bond0", id: 0 } }, eno3],
      nameservers: [],
    };
    expect(networkPart(rendered({ network }, null))).toBe(
      [
        "Network (declared): no nameservers",
        "  bond0  bond 802.3ad of eno1, eno2, mtu 9000",
        "  eno3   port, DHCP",
        "  does not read, so the machine applies none of it: network.interfaces[1].vlan.id is not 1 to 4094",
        "Network (last boot): not booted yet",
        "",
      ].join("\n"),
    );
    expect(networkPart(rendered({ network: "bond0" }, null))).toBe(
      "Network (declared): no nameservers\n  does not read, so the machine applies none of it: network is not an object\nNetwork (last boot): not booted yet\n",
    );
  });

  it("show what they can of a status.network with damaged fields, without control characters", () => {
    const damaged = {
      interfaces: [
        { name: "bond0", state: 7, bond: { members: [{ name: "eno1" }, "eno2", null] } },
        { name: { x: 1 }, state: "up", addresses: ["10.0.40.11/24", 5, "\u001b[2J"] },
        null,
        { name: "x".repeat(500), state: "down", bond: [], addresses: "10.0.0.1/24", dhcp: "yes" },
      ],
    };
    const ready = { ...DEGRADED, reason: ["x"], message: "bond0:\u0007 gone" };
    const out = networkPart(
      rendered({ network: DECLARED }, { conditions: [ready], network: damaged }),
    );
    const lastBoot = out.slice(out.indexOf("Network (last boot)"));
    expect(lastBoot).toBe(
      [
        "Network (last boot): NetworkReady False ?: bond0:? gone",
        "  bond0             7, eno1 ?, ?, ?",
        "  ?                 up, 10.0.40.11/24 5 ?[2J",
        "  ?                 does not read",
        `  ${"x".repeat(15)}…  down`,
        "",
      ].join("\n"),
    );
    expect(out.replaceAll("\n", "")).not.toMatch(/\p{Cc}/u);
    for (const network of [5, "up", [], { interfaces: "bond0" }, { interfaces: [[]] }])
      expect(() => rendered({ network: DECLARED }, { network })).not.toThrow();
    expect(networkPart(rendered({ network: DECLARED }, { network: 5 }))).toContain(
      "Network (last boot): not reported\n",
    );
  });
});

describe("the claim's line", () => {
  const first = (i: Inspection) => renderInspection(i).split("\n")[0];

  it("names the disk's use, cluster and machine", () => {
    expect(first(inspection(null))).toBe(
      "disk.img  32 GiB  liken system disk of mycluster/leader-1, release 1.0.0, install complete",
    );
  });

  it("names a mirror member's place and the disk beside it, by serial, WWN or path", () => {
    const member = (peer: { serial?: string; wwn?: string; path?: string }) => {
      const i = inspection(null);
      return first({ ...i, claim: { ...i.claim, mirror: { member: 2, of: 2, peer } } });
    };
    expect(member({ serial: "S4EVNX0N123456", path: "/dev/sda" })).toBe(
      "disk.img  32 GiB  liken system disk, mirror member 2 of 2 of mycluster/leader-1 beside S4EVNX0N123456, release 1.0.0, install complete",
    );
    expect(member({ wwn: "0x5002538e4a8b1234", path: "/dev/sda" })).toContain(
      "mirror member 2 of 2 of mycluster/leader-1 beside 0x5002538e4a8b1234, release",
    );
    expect(member({ path: "/dev/sda" })).toContain(
      "mirror member 2 of 2 of mycluster/leader-1 beside /dev/sda, release",
    );
  });
});
