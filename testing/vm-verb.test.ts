// The machine `liken-stick vm` (and `npm start`) boots looks like a server: an onboard NIC
// the guest names as examples/cluster.toml's leader-1 declares its port, and an SMBIOS
// serial. The QEMU command line is checked here; test/qemu/boot-ports.test.ts boots the
// same NIC and reads eno1 in the guest.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseManifest } from "../manifest/index.ts";
import { qemuArgs } from "./qemu/index.ts";
import { DEFAULT_SYSTEM_SERIAL, serverParts } from "./vm-verb.ts";

const FIRMWARE = { code: "/usr/share/OVMF/OVMF_CODE_4M.fd", vars: "/tmp/vm/OVMF_VARS.fd" };

describe("the vm's server parts", () => {
  it("give one onboard NIC with acpi-index 1 behind a root port, and the SMBIOS serial", () => {
    const args = qemuArgs({
      firmware: FIRMWARE,
      serial: { kind: "stdio" },
      ...serverParts(1, DEFAULT_SYSTEM_SERIAL),
    });
    expect(args.join(" ")).toContain("-smbios type=1,serial=LIKEN-VM-0001");
    // biome-ignore format: one device per line
    expect(args.slice(args.indexOf("-device", args.indexOf("qemu-xhci,id=xhci")))).toEqual([
      "-device", "pcie-root-port,id=nic0-port,chassis=64,slot=64",
      "-netdev", "user,id=net0",
      "-device", "virtio-net-pci,netdev=net0,id=nic0,bus=nic0-port,acpi-index=1",
    ]);
  });

  it("name in the guest every port leader-1 of examples/cluster.toml declares", () => {
    const parsed = parseManifest(readFileSync("examples/cluster.toml", "utf8"), "cluster.toml");
    if (!parsed.ok) throw new Error("examples/cluster.toml does not parse");
    const leader = parsed.manifest.machines.find((m) => m.name === "leader-1");
    const names = (serverParts(1, DEFAULT_SYSTEM_SERIAL).nics ?? []).map(
      (n) => typeof n !== "string" && `eno${n.acpiIndex}`,
    );
    expect(leader?.ports).toEqual(["eno1"]);
    for (const port of leader?.ports ?? []) expect(names).toContain(port);
  });

  it("give N NICs eno1 to enoN, or none", () => {
    const three = serverParts(3, "S").nics ?? [];
    expect(three.map((n) => typeof n !== "string" && n.acpiIndex)).toEqual([1, 2, 3]);
    expect(serverParts(0, "S").nics).toEqual([]);
    expect(
      qemuArgs({ firmware: FIRMWARE, serial: { kind: "stdio" }, ...serverParts(0, "S") }),
    ).not.toContain("-netdev");
  });
});
