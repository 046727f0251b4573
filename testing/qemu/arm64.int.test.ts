// The arm64 machine: QEMU's virt under AAVMF and TCG. Its command line for a few specs, the
// fields virt cannot carry, AAVMF through Debian's descriptors, and one real boot through
// AAVMF and systemd-boot to a busybox /init on the PL011 (ttyAMA0).
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archFacts } from "../../common/arch.ts";
import { DEFAULT_EPOCH } from "../../image-build/epoch.ts";
import { buildFatImage } from "../../image-build/fat-image.ts";
import { buildInitramfs } from "../../image-build/initramfs.ts";
import { requireUnpackedInputs } from "../../image-build/unpacked.ts";
import { startVm, stopAllVms } from "../../test/qemu/harness.ts";
import { boardOf, chooseAccel, ovmfMismatch, qemuArgs, requireOvmf, type VmSpec } from "./index.ts";

const AAVMF = { code: "/usr/share/AAVMF/AAVMF_CODE.fd", vars: "/tmp/vm/AAVMF_VARS.fd" };
const SERIAL = { kind: "socket", path: "/tmp/vm/serial.sock", log: "/tmp/vm/serial.log" } as const;

describe("qemuArgs for arm64", () => {
  it("builds virt with ACPI and a GICv3, AAVMF, the PL011 console, and the disks AAVMF boots from", () => {
    const spec: VmSpec = {
      arch: "arm64",
      firmware: AAVMF,
      stick: "/images/stick.img",
      disks: [
        { path: "/d/nvme.img", bus: "nvme" },
        { path: "/d/virtio.img", bus: "virtio", rootPort: true },
        { path: "/d/scsi.img", bus: "virtio-scsi" },
      ],
      serial: SERIAL,
      qmpSocket: "/tmp/vm/qmp.sock",
      noReboot: true,
    };
    expect(boardOf(spec).qemu).toBe("qemu-system-aarch64");
    // biome-ignore format: one option and its value per line
    expect(qemuArgs(spec)).toEqual([
      "-machine", "virt,acpi=on,gic-version=3",
      "-accel", "tcg",
      "-cpu", "neoverse-n1",
      "-smp", "2",
      "-m", "2048",
      "-nodefaults",
      "-display", "none",
      "-drive", "if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/AAVMF/AAVMF_CODE.fd",
      "-drive", "if=pflash,format=raw,unit=1,file=/tmp/vm/AAVMF_VARS.fd",
      "-chardev", "socket,id=serial0,path=/tmp/vm/serial.sock,server=on,wait=on,logfile=/tmp/vm/serial.log,logappend=on",
      "-serial", "chardev:serial0",
      "-qmp", "unix:/tmp/vm/qmp.sock,server=on,wait=off",
      "-no-reboot",
      "-device", "i6300esb",
      "-action", "watchdog=reset",
      "-device", "qemu-xhci,id=xhci",
      "-drive", "if=none,id=stick,format=raw,file=/images/stick.img,snapshot=on",
      "-device", "usb-storage,bus=xhci.0,drive=stick,id=stick0,removable=on,bootindex=1",
      "-drive", "if=none,id=disk0,format=raw,file=/d/nvme.img,cache=unsafe,discard=unmap,node-name=disk0-format,file.node-name=disk0-file",
      "-device", "nvme,drive=disk0,id=disk0-dev,serial=nvme0,bootindex=2",
      "-drive", "if=none,id=disk1,format=raw,file=/d/virtio.img,cache=unsafe,discard=unmap,node-name=disk1-format,file.node-name=disk1-file",
      "-device", "pcie-root-port,id=disk1-port,chassis=2,slot=2",
      "-device", "virtio-blk-pci,drive=disk1,id=disk1-dev,bus=disk1-port,bootindex=3",
      "-drive", "if=none,id=disk2,format=raw,file=/d/scsi.img,cache=unsafe,discard=unmap,node-name=disk2-format,file.node-name=disk2-file",
      "-device", "virtio-scsi-pci,id=virtio-scsi0",
      "-device", "scsi-hd,bus=virtio-scsi0.0,drive=disk2,id=disk2-dev,bootindex=4",
    ]);
  });

  it("puts the CD on virtio-scsi, the TPM on virt's TIS, and the NICs on PCIe", () => {
    const args = qemuArgs({
      arch: "arm64",
      firmware: AAVMF,
      cdrom: "/images/liken.iso",
      tpmSocket: "/tmp/vm/swtpm.sock",
      nics: ["virtio", { model: "e1000e", rootPort: true }],
      disks: [{ path: "/d/sata.img", bus: "ahci" }],
      serial: { kind: "stdio" },
    });
    // biome-ignore format: one device per line
    expect(args.slice(args.indexOf("-action"))).toEqual([
      "-action", "watchdog=reset",
      "-chardev", "socket,id=tpmchr,path=/tmp/vm/swtpm.sock",
      "-tpmdev", "emulator,id=tpm0,chardev=tpmchr",
      "-device", "tpm-tis-device,tpmdev=tpm0",
      "-device", "qemu-xhci,id=xhci",
      "-drive", "if=none,id=cd0,format=raw,media=cdrom,readonly=on,file=/images/liken.iso",
      "-device", "virtio-scsi-pci,id=cdscsi",
      "-device", "scsi-cd,bus=cdscsi.0,drive=cd0,id=cd0-dev,bootindex=1",
      // The guest's kernel reads an AHCI disk on virt; AAVMF does not boot from one.
      "-device", "ahci,id=ahci0",
      "-drive", "if=none,id=disk0,format=raw,file=/d/sata.img,cache=unsafe,discard=unmap,node-name=disk0-format,file.node-name=disk0-file",
      "-device", "ide-hd,bus=ahci0.0,drive=disk0,id=disk0-dev,bootindex=2",
      "-netdev", "user,id=net0", "-device", "virtio-net-pci,netdev=net0,id=nic0",
      "-device", "pcie-root-port,id=nic1-port,chassis=65,slot=65",
      "-netdev", "user,id=net1", "-device", "e1000e,netdev=net1,id=nic1,bus=nic1-port",
    ]);
    expect(args).not.toContain("ICH9-LPC.noreboot=false");
  });

  it("boots a kernel directly without firmware, its console on the PL011", () => {
    const console = archFacts("arm64").serialConsole;
    const args = qemuArgs({
      arch: "arm64",
      kernel: { kernel: "/k/vmlinuz", initrd: "/k/initrd.img", append: `console=${console}` },
      memoryMiB: 1024,
      cpus: 1,
      serial: { kind: "file", path: "/tmp/a.log" },
      watchdog: "none",
    }).join(" ");
    expect(args).toContain(
      "-machine virt,acpi=on,gic-version=3 -accel tcg -cpu neoverse-n1 -smp 1 -m 1024",
    );
    expect(args).toContain("-kernel /k/vmlinuz -initrd /k/initrd.img -append console=ttyAMA0");
    expect(args).not.toContain("pflash");
  });

  it("refuses what only a PC has, saying what to change", () => {
    const base: VmSpec = { arch: "arm64", firmware: AAVMF, serial: { kind: "stdio" } };
    expect(() => qemuArgs({ ...base, machine: "q35" })).toThrow(
      "machine q35 is a PC board; arm64 VMs are QEMU's virt: leave it out for arm64",
    );
    expect(() => qemuArgs({ ...base, firmware: { ...AAVMF, smm: true } })).toThrow(
      "SMM is a PC's; AAVMF has no SMM build: leave it out for arm64",
    );
    expect(() => qemuArgs({ ...base, watchdog: "ib700" })).toThrow(
      "the ib700 watchdog is an ISA card; virt has no ISA bus: take i6300esb or none",
    );
    expect(() => qemuArgs({ ...base, debugExit: true })).toThrow(
      "isa-debug-exit is an ISA device; virt has no ISA bus: leave it out for arm64",
    );
    expect(() =>
      qemuArgs({ ...base, nics: ["virtio", { model: "virtio", acpiIndex: 1 }] }),
    ).toThrow(
      "nic1's acpiIndex never reaches an arm64 guest (virt has no ACPI PCI hotplug): leave it out for arm64",
    );
  });
});

describe("chooseAccel for arm64", () => {
  it("runs arm64 under TCG on this x86-64 host, whatever LIKEN_ACCEL says, and refuses KVM", async () => {
    const saved = process.env.LIKEN_ACCEL;
    try {
      process.env.LIKEN_ACCEL = "kvm";
      expect(await chooseAccel(undefined, "arm64")).toEqual({
        accel: "tcg",
        why: "arm64 on this amd64 host",
      });
      await expect(chooseAccel("kvm", "arm64")).rejects.toThrow(
        "KVM runs only amd64 guests on this host: ask for tcg",
      );
    } finally {
      if (saved === undefined) delete process.env.LIKEN_ACCEL;
      else process.env.LIKEN_ACCEL = saved;
    }
  });
});

// Debian 12's aarch64 descriptors (qemu-efi-aarch64 2022.11-6+deb12u2), abridged to what
// the choice reads, and its x86_64 plain one.
const DESCRIPTORS = {
  "40-edk2-aarch64-secure-enrolled.json": {
    code: "AAVMF_CODE.ms.fd",
    vars: "AAVMF_VARS.ms.fd",
    target: { architecture: "aarch64", machines: ["virt-*"] },
    features: ["enrolled-keys", "secure-boot", "verbose-static"],
  },
  // The package ships no AAVMF_CODE.secboot.fd.
  "50-edk2-aarch64-secure.json": {
    code: "AAVMF_CODE.secboot.fd",
    vars: "AAVMF_VARS.fd",
    target: { architecture: "aarch64", machines: ["virt-*"] },
    features: ["secure-boot", "verbose-static"],
  },
  "60-edk2-aarch64.json": {
    code: "AAVMF_CODE.fd",
    vars: "AAVMF_VARS.fd",
    target: { architecture: "aarch64", machines: ["virt-*"] },
    features: ["verbose-static"],
  },
  "60-edk2-x86_64.json": {
    code: "OVMF_CODE.fd",
    vars: "OVMF_VARS.fd",
    target: { architecture: "x86_64", machines: ["pc-i440fx-*", "pc-q35-*"] },
    features: ["acpi-s3"],
  },
};

function descriptor(dir: string, d: (typeof DESCRIPTORS)[keyof typeof DESCRIPTORS]) {
  return {
    "interface-types": ["uefi"],
    mapping: {
      device: "flash",
      executable: { filename: join(dir, d.code), format: "raw" },
      "nvram-template": { filename: join(dir, d.vars), format: "raw" },
    },
    targets: [d.target],
    features: d.features,
  };
}

describe("requireOvmf for arm64", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "liken-aavmf-"));
    for (const [name, d] of Object.entries(DESCRIPTORS)) {
      await writeFile(join(dir, name), JSON.stringify(descriptor(dir, d)));
    }
    for (const file of ["AAVMF_CODE.fd", "AAVMF_VARS.fd", "AAVMF_VARS.ms.fd"]) {
      await writeFile(join(dir, file), "");
    }
    // As Debian ships it: the code of Microsoft's descriptor is the plain code.
    await symlink("AAVMF_CODE.fd", join(dir, "AAVMF_CODE.ms.fd"));
    await writeFile(join(dir, "OVMF_CODE.fd"), "");
    await writeFile(join(dir, "OVMF_VARS.fd"), "");
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("takes plain AAVMF, with no SMM, and passes over the x86_64 firmware", async () => {
    const aavmf = await requireOvmf(dir, "plain", "arm64");
    expect(aavmf).toMatchObject({
      code: join(dir, "AAVMF_CODE.fd"),
      varsTemplate: join(dir, "AAVMF_VARS.fd"),
      smm: false,
    });
    expect(aavmf.skipped.map((s) => s.reason)).toEqual([
      "has enrolled-keys, secure-boot (not plain)",
      "has secure-boot (not plain)",
    ]);
    expect(
      ovmfMismatch(descriptor(dir, DESCRIPTORS["60-edk2-x86_64.json"]), "plain", "arm64"),
    ).toBe("not for aarch64 virt machines");
    // And the other way round: amd64 still takes OVMF.
    expect((await requireOvmf(dir)).code).toBe(join(dir, "OVMF_CODE.fd"));
  });

  it("takes AAVMF with Microsoft's keys, and for setup mode the plain AAVMF whose code Microsoft's names", async () => {
    expect(await requireOvmf(dir, "microsoft", "arm64")).toMatchObject({
      code: join(dir, "AAVMF_CODE.ms.fd"),
      varsTemplate: join(dir, "AAVMF_VARS.ms.fd"),
      smm: false,
    });
    const setup = await requireOvmf(dir, "setup-mode", "arm64");
    expect(setup).toMatchObject({
      code: join(dir, "AAVMF_CODE.fd"),
      varsTemplate: join(dir, "AAVMF_VARS.fd"),
      descriptor: join(dir, "60-edk2-aarch64.json"),
      smm: false,
    });
    expect(setup.skipped.map((s) => s.reason)).toContain(
      `cannot read ${join(dir, "AAVMF_CODE.secboot.fd")}`,
    );
  });

  it("refuses setup mode when the plain code is another file than the Secure Boot one", async () => {
    const other = await mkdtemp(join(tmpdir(), "liken-aavmf-other-"));
    try {
      for (const [name, d] of Object.entries(DESCRIPTORS)) {
        await writeFile(join(other, name), JSON.stringify(descriptor(other, d)));
      }
      for (const file of [
        "AAVMF_CODE.fd",
        "AAVMF_CODE.ms.fd",
        "AAVMF_VARS.fd",
        "AAVMF_VARS.ms.fd",
      ]) {
        await writeFile(join(other, file), "");
      }
      await expect(requireOvmf(other, "setup-mode", "arm64")).rejects.toThrow(
        `no AAVMF firmware for virt (setup-mode) in ${other} (${join(other, "40-edk2-aarch64-secure-enrolled.json")}: has enrolled-keys (not setup-mode); ${join(other, "50-edk2-aarch64-secure.json")}: cannot read ${join(other, "AAVMF_CODE.secboot.fd")};`,
      );
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});

// The line the test's /init prints, with the console the kernel wrote to.
const UP = "liken-arm64: up on";

describe("an arm64 VM", () => {
  let dir: string;
  let esp: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "liken-arm64-"));
    esp = await buildEsp(dir);
  }, 300_000);
  afterAll(async () => {
    await stopAllVms();
    await rm(dir, { recursive: true, force: true });
  });

  it("boots AAVMF, systemd-boot and a kernel to /init on the PL011, with a TPM, and powers off", async () => {
    const vm = await startVm({
      arch: "arm64",
      disks: [{ path: esp, bus: "virtio" }],
      memoryMiB: 1024,
      tpmState: join(dir, "tpm"),
    });
    // About 10 s on an idle 2-core host; the deadline leaves room for a loaded one.
    expect(await vm.waitFor(UP, 90_000)).toContain(`${UP} ttyAMA0 aarch64`);
    // AAVMF found the TPM on virt's TIS and gave the kernel its ACPI table.
    expect(vm.console()).toMatch(/ACPI: TPM2 /);
    expect((await vm.waitForExit(30_000)).shutdownReason).toBe("guest-shutdown");
  }, 120_000);
});

/**
 * A FAT ESP (the whole disk, as a superfloppy) with systemd-boot as the removable loader,
 * one entry with the arm64 kernel, and an initramfs whose busybox /init prints UP and the
 * console and powers off.
 */
async function buildEsp(dir: string): Promise<string> {
  const inputs = await requireUnpackedInputs(undefined, "arm64");
  const console = archFacts("arm64").serialConsole;
  const root = join(dir, "initramfs");
  await mkdir(join(root, "bin"), { recursive: true });
  await copyFile(inputs.busybox, join(root, "bin/busybox"));
  await symlink("busybox", join(root, "bin/sh"));
  for (const d of ["proc", "sys"]) await mkdir(join(root, d));
  await writeFile(
    join(root, "init"),
    [
      "#!/bin/sh",
      "/bin/busybox mount -t sysfs sysfs /sys",
      `echo "${UP} $(/bin/busybox cat /sys/class/tty/console/active) $(/bin/busybox uname -m)"`,
      "/bin/busybox poweroff -f",
      "",
    ].join("\n"),
  );
  await chmod(join(root, "init"), 0o755);
  const tree = join(dir, "esp");
  const removable = join(tree, archFacts("arm64").removableLoader);
  await mkdir(join(removable, ".."), { recursive: true });
  await mkdir(join(tree, "loader/entries"), { recursive: true });
  await copyFile(inputs.systemdBoot, removable);
  await copyFile(inputs.vmlinuz, join(tree, "vmlinuz"));
  await buildInitramfs(root, join(tree, "initrd.img"), DEFAULT_EPOCH, join(dir, "initrd.cpio"));
  await writeFile(join(tree, "loader/loader.conf"), "timeout 0\n");
  await writeFile(
    join(tree, "loader/entries/arm64.conf"),
    `title arm64\nlinux /vmlinuz\ninitrd /initrd.img\noptions console=${console} panic=-1\n`,
  );
  const image = join(dir, "esp.img");
  await buildFatImage(image, {
    size: 96 * 1024 * 1024,
    label: "ESP",
    volumeId: "1234ABCD",
    tree,
    epoch: DEFAULT_EPOCH,
  });
  return image;
}
