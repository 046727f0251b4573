// The machine `liken-stick vm` (and `npm start`) boots looks like a server: an onboard NIC
// the guest names as examples/cluster.toml's leader-1 declares its port, and an SMBIOS
// serial. The QEMU command line is checked here; test/qemu/boot-ports.test.ts boots the
// same NIC and reads eno1 in the guest. `--arch arm64` boots QEMU's virt, and with nothing
// to boot the example's arm64 stick, whose manifest names its machines arm64 ones.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { main } from "../cli/main.ts";
import { parseManifest } from "../manifest/index.ts";
import { ARM64_VM_FIRST_PORT, arm64Example } from "./example-manifest-arm64.ts";
import { qemuArgs } from "./qemu/index.ts";
import {
  DEFAULT_SYSTEM_SERIAL,
  nicNames,
  parseDiskOption,
  planMedia,
  serverParts,
  vmVerb,
} from "./vm-verb.ts";

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

describe("--arch", () => {
  const disk = parseDiskOption("8G");

  it("boots what is given on either arch, and nothing on amd64 is a usage error as before", () => {
    expect(planMedia("amd64", "s.img", [disk])).toEqual({
      stick: { kind: "file", path: "s.img" },
      disks: [disk],
    });
    expect(planMedia("arm64", "s.img", [])).toEqual({
      stick: { kind: "file", path: "s.img" },
      disks: [],
    });
    // An installed arm64 disk boots on its own.
    expect(planMedia("arm64", undefined, [disk])).toEqual({ stick: undefined, disks: [disk] });
    expect(() => planMedia("amd64", undefined, [])).toThrow("nothing to boot");
  });

  it("arm64 with nothing to boot builds the example's arm64 stick, beside a blank 32 GiB disk", () => {
    expect(planMedia("arm64", undefined, [])).toEqual({
      stick: { kind: "arm64-example" },
      disks: [{ kind: "new", bytes: 32 * 1024 ** 3, bus: "virtio" }],
    });
  });

  it("refuses an arch liken does not build for, naming the two, before anything starts", async () => {
    const err: string[] = [];
    const code = await main(
      ["vm", "--arch", "aarch64"],
      { out: () => {}, err: (t) => err.push(t) },
      [vmVerb],
    );
    expect(code).toBe(2);
    expect(err.join("")).toContain("--arch aarch64 is not an architecture liken builds for");
    expect(err.join("")).toContain("give amd64 or arm64");
  });

  it("is in the help, with what arm64 builds and boots", async () => {
    const out: string[] = [];
    await main(["vm", "--help"], { out: (t) => out.push(t), err: () => {} }, [vmVerb]);
    const help = out.join("");
    expect(help).toContain("--arch ARCH");
    expect(help).toContain('examples/cluster.toml with arch = "arm64"');
  });

  it("gives arm64's NICs no acpi-index (virt has none) and names them as its guest does", () => {
    const parts = serverParts(2, "S", "arm64");
    expect(parts.nics).toEqual([
      { model: "virtio", rootPort: true },
      { model: "virtio", rootPort: true },
    ]);
    expect(nicNames(2, "arm64")).toEqual(["ens64", "ens65"]);
    expect(nicNames(2)).toEqual(["eno1", "eno2"]);
    // The root ports of the first NICs are in slots 64 and 65: the slot names the NIC.
    const args = qemuArgs({
      arch: "arm64",
      firmware: { code: "/AAVMF_CODE.fd", vars: "/tmp/AAVMF_VARS.fd" },
      serial: { kind: "stdio" },
      ...parts,
    }).join(" ");
    expect(args).toContain("pcie-root-port,id=nic0-port,chassis=64,slot=64");
    expect(args).toContain("pcie-root-port,id=nic1-port,chassis=65,slot=65");
  });

  it("derives an arm64 example whose every machine is arm64 and whose leader-1 waits for ens64", () => {
    const text = arm64Example(readFileSync("examples/cluster.toml", "utf8"));
    const parsed = parseManifest(text, "cluster-arm64.toml");
    if (!parsed.ok) throw new Error("the arm64 example does not parse");
    expect(parsed.manifest.machines.map((m) => [m.name, m.arch])).toEqual([
      ["leader-1", "arm64"],
      ["worker-1", "arm64"],
      ["worker-2", "arm64"],
    ]);
    expect(parsed.manifest.machines[0]?.ports).toEqual([ARM64_VM_FIRST_PORT]);
    expect(nicNames(1, "arm64")).toEqual([ARM64_VM_FIRST_PORT]);
  });
});
