// examples/rack-static.toml is the Networks section of docs/manifest.md as a whole file:
// it must check clean, and carry each machine's network as declared.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatProblem, parseManifest } from "./index.ts";

const FILE = fileURLToPath(new URL("../examples/rack-static.toml", import.meta.url));

describe("examples/rack-static.toml", () => {
  it("checks clean: no error, no warning", () => {
    const result = parseManifest(readFileSync(FILE, "utf8"), FILE);
    expect(result.ok ? [] : result.errors.map(formatProblem)).toEqual([]);
    expect(result.warnings.map(formatProblem)).toEqual([]);
  });

  it("declares a bond with a VLAN, a static port and a DHCP port", () => {
    const result = parseManifest(readFileSync(FILE, "utf8"), FILE);
    if (!result.ok) throw new Error(result.errors.map(formatProblem).join("\n"));
    const networks = result.manifest.machines.map((m) => ({
      name: m.name,
      nameservers: m.nameservers,
      interfaces: m.interfaces,
    }));
    expect(networks).toEqual([
      {
        name: "leader-1",
        nameservers: ["10.0.40.2", "fd00:40::2"],
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
            routes: [
              { to: "0.0.0.0/0", via: "10.0.40.1" },
              { to: "::/0", via: "fd00:40::1" },
            ],
            dhcp: false,
          },
        ],
      },
      {
        name: "worker-1",
        nameservers: ["10.0.40.2"],
        interfaces: [
          {
            name: "ens1f0",
            addresses: ["10.0.40.21/24"],
            routes: [{ to: "0.0.0.0/0", via: "10.0.40.1" }],
            dhcp: false,
          },
        ],
      },
      {
        name: "worker-2",
        nameservers: [],
        interfaces: [{ name: "enp4s0", addresses: [], routes: [], dhcp: true }],
      },
    ]);
  });
});
