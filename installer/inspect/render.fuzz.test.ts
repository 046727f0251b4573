// `inspect` for people on a disk whose identity.json and status document hold anything: a
// power loss, an older or newer release, a person's edit. The documents are read as inspect
// reads them, and the text never throws and prints no control characters from the disk.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseIdentity } from "../../formats/identity.ts";
import { parseMachineStatus } from "../../formats/machine-status.ts";
import { fuzzParameters } from "../../test/fuzz.ts";
import { deeplyNested, jsonValue, mutatedText, withValuesReplaced } from "../../test/fuzz-text.ts";
import { inspectNetwork } from "./inspect.ts";
import { renderInspection } from "./render.ts";
import type { Inspection } from "./types.ts";

const identity = JSON.stringify(
  {
    cluster: "rack7",
    machine: "leader-1",
    role: "leader",
    ports: ["eno1", "eno2"],
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

const status = JSON.stringify(
  {
    apiVersion: "liken.dev/v1",
    kind: "MachineStatus",
    phase: "Running",
    version: "1.0.0",
    slot: "a",
    conditions: [
      {
        type: "NetworkReady",
        status: "False",
        reason: "BondDegraded",
        message: "bond0: eno2 has no carrier, traffic runs on eno1 alone",
        lastTransitionTime: "2026-12-01T04:41:07Z",
      },
    ],
    network: {
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
          addresses: ["10.0.40.11/24", "fd00:40::11/64", "192.168.7.20/24"],
          dhcp: true,
        },
      ],
      nameservers: ["10.0.40.2"],
    },
    updatedAt: "2026-12-01T04:41:07Z",
  },
  null,
  2,
);

const documents = (valid: string) =>
  fc.oneof(
    fc.string({ maxLength: 200, unit: "binary" }),
    mutatedText(valid),
    withValuesReplaced(valid, jsonValue),
    // Control characters and long words where names and addresses go.
    withValuesReplaced(
      valid,
      fc.string({ maxLength: 80, unit: "binary" }).map((s) => JSON.stringify(s)),
    ),
    deeplyNested.json,
    fc.constant(valid),
  );

function rendered(identityText: string, statusText: string): string {
  const id = parseIdentity(identityText);
  const st = parseMachineStatus(statusText);
  return renderInspection({
    path: "disk.img",
    size: 32 * 1024 ** 3,
    claim: {
      cluster: "rack7",
      machine: "leader-1",
      installId: "732ba6d2-aadd-488a-ba2e-165751dff406",
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
    status: st,
    installer: null,
    identity: id,
    spec: null,
    network: inspectNetwork(id, st),
    journal: null,
    crashes: [],
    problems: [],
  } satisfies Inspection);
}

describe("inspect's Network lines, fuzzed", () => {
  it("show any identity.json and status document without throwing or control characters", () => {
    fc.assert(
      fc.property(documents(identity), documents(status), (i, s) => {
        const network = rendered(i, s)
          .split("\n")
          .filter((l) => /^(Network| {2})/.test(l));
        for (const line of network) expect(line).not.toMatch(/\p{Cc}/u);
      }),
      fuzzParameters(),
    );
  });
});
