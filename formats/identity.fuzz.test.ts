// identity.json on the state partition, read by the boot agent at every boot: whatever it
// holds, the agent gets the fields it needs with the defaults for the rest, never an error;
// and inspect gets what reads of its network.
import { describe, expect } from "vitest";
import { NO_NETWORK } from "../common/network-declaration.ts";
import { itReadsAnyText } from "../test/fuzz-text.ts";
import {
  type Identity,
  parseBootIdentity,
  parseIdentity,
  readNetworkDeclaration,
} from "./identity.ts";

const valid = JSON.stringify(
  {
    cluster: "mycluster",
    machine: "leader-1",
    role: "leader",
    installId: "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
    installedRelease: "1.0.0",
    installedAt: "2026-12-01T04:41:07Z",
    ports: ["eno1", "eno2"],
    modules: [{ name: "ixgbe", parameters: "allow_unsupported_sfp=1" }],
    rebootPolicy: "Automatic",
    storage: [{ role: "data", label: "liken-data" }],
    network: {
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
          dhcp: true,
        },
      ],
      nameservers: ["10.0.40.2"],
    },
  },
  null,
  2,
);

function expectIdentity(text: string): void {
  const identity = parseBootIdentity(text);
  expect(identity.installId === null || typeof identity.installId === "string").toBe(true);
  expect(["Automatic", "Manual"]).toContain(identity.rebootPolicy);
  for (const port of identity.ports) expect(typeof port).toBe("string");
  for (const m of identity.modules) {
    expect(typeof m.name).toBe("string");
    expect(typeof m.parameters).toBe("string");
  }
  // A mirror's members each have a place, a path and five PARTUUIDs; never more than two.
  expect((identity.mirror ?? []).length).toBeLessThanOrEqual(2);
  for (const m of identity.mirror ?? []) {
    expect([1, 2]).toContain(m.member);
    expect(typeof m.path).toBe("string");
    expect(Object.keys(m.partUuids)).toHaveLength(5);
  }
  // The network reads whole, or reads as none with the reason.
  const { network, networkError } = identity;
  if (networkError !== null) expect(network).toEqual(NO_NETWORK);
  for (const n of network.nameservers) expect(n).toMatch(/^[0-9A-Fa-f:.]+$/);
  for (const i of network.interfaces) {
    expect(i.name).toMatch(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,14}$/);
    expect(typeof i.dhcp).toBe("boolean");
    for (const a of i.addresses) expect(a).toMatch(/^[0-9A-Fa-f:.]+\/\d+$/);
    for (const r of i.routes) expect([typeof r.to, typeof r.via]).toEqual(["string", "string"]);
    expect(i.bond !== undefined && i.vlan !== undefined).toBe(false);
    if (i.vlan) expect(i.vlan.id >= 1 && i.vlan.id <= 4094).toBe(true);
    if (i.bond) expect(["802.3ad", "active-backup"]).toContain(i.bond.mode);
  }
}

// inspect shows what reads: the same shapes, each part that does not read named instead.
function expectShownNetwork(text: string): void {
  const value: Partial<Record<keyof Identity, unknown>> | null = parseIdentity(text);
  if (value?.network === undefined) return;
  const { network, errors } = readNetworkDeclaration(value.network);
  for (const e of errors) expect(typeof e).toBe("string");
  const whole = parseBootIdentity(text);
  expect(whole.networkError).toBe(errors[0] ?? null);
  if (errors.length === 0) expect(whole.network).toEqual(network);
  expectIdentity(JSON.stringify({ network }));
  expect(parseBootIdentity(JSON.stringify({ network })).networkError).toBeNull();
}

describe("identity.json's reader, fuzzed", () => {
  itReadsAnyText(valid, "json", expectIdentity);
});

describe("identity.json's network as inspect reads it, fuzzed", () => {
  itReadsAnyText(valid, "json", expectShownNetwork);
});
