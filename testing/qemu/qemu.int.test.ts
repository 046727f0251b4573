import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chooseAccel,
  findKvmFailure,
  ovmfMismatch,
  qemuArgs,
  requireOvmf,
  runProbe,
  type VmSpec,
} from "./index.ts";

const FIRMWARE = { code: "/usr/share/OVMF/OVMF_CODE_4M.fd", vars: "/tmp/vm/OVMF_VARS.fd" };

describe("qemuArgs", () => {
  it("attaches the stick first, then NVMe, AHCI and virtio disks in the order given", () => {
    const spec: VmSpec = {
      firmware: FIRMWARE,
      stick: "/images/stick.img",
      disks: [
        { path: "/d/nvme.img", bus: "nvme" },
        { path: "/d/sata.img", bus: "ahci", serial: "SATA1" },
        { path: "/d/virtio.img", bus: "virtio" },
        { path: "/d/sata2.img", bus: "ahci" },
      ],
      serial: { kind: "socket", path: "/tmp/vm/serial.sock", log: "/tmp/vm/serial.log" },
      qmpSocket: "/tmp/vm/qmp.sock",
      noReboot: true,
    };
    // biome-ignore format: one option and its value per line
    expect(qemuArgs(spec)).toEqual([
      "-machine", "q35",
      "-accel", "tcg",
      "-cpu", "max,erms=off,fsrm=off",
      "-smp", "2",
      "-m", "2048",
      "-nodefaults",
      "-display", "none",
      "-drive", "if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd",
      "-drive", "if=pflash,format=raw,unit=1,file=/tmp/vm/OVMF_VARS.fd",
      "-chardev", "socket,id=serial0,path=/tmp/vm/serial.sock,server=on,wait=on,logfile=/tmp/vm/serial.log,logappend=on",
      "-serial", "chardev:serial0",
      "-qmp", "unix:/tmp/vm/qmp.sock,server=on,wait=off",
      "-no-reboot",
      "-global", "ICH9-LPC.noreboot=false",
      "-device", "i6300esb",
      "-action", "watchdog=reset",
      "-device", "qemu-xhci,id=xhci",
      "-drive", "if=none,id=stick,format=raw,file=/images/stick.img,snapshot=on",
      "-device", "usb-storage,bus=xhci.0,drive=stick,id=stick0,removable=on,bootindex=1",
      "-device", "ahci,id=ahci0",
      "-drive", "if=none,id=disk0,format=raw,file=/d/nvme.img,cache=unsafe,discard=unmap,node-name=disk0-format,file.node-name=disk0-file",
      "-device", "nvme,drive=disk0,id=disk0-dev,serial=nvme0,bootindex=2",
      "-drive", "if=none,id=disk1,format=raw,file=/d/sata.img,cache=unsafe,discard=unmap,node-name=disk1-format,file.node-name=disk1-file",
      "-device", "ide-hd,bus=ahci0.0,drive=disk1,id=disk1-dev,serial=SATA1,bootindex=3",
      "-drive", "if=none,id=disk2,format=raw,file=/d/virtio.img,cache=unsafe,discard=unmap,node-name=disk2-format,file.node-name=disk2-file",
      "-device", "virtio-blk-pci,drive=disk2,id=disk2-dev,bootindex=4",
      "-drive", "if=none,id=disk3,format=raw,file=/d/sata2.img,cache=unsafe,discard=unmap,node-name=disk3-format,file.node-name=disk3-file",
      "-device", "ide-hd,bus=ahci0.1,drive=disk3,id=disk3-dev,bootindex=5",
    ]);
  });

  it("puts the console on the terminal with the monitor, and takes KVM, memory and CPUs", () => {
    const args = qemuArgs({
      firmware: FIRMWARE,
      accel: "kvm",
      memoryMiB: 4096,
      cpus: 4,
      disks: [{ path: "/d/a,b.img", bus: "virtio", serial: "S1" }],
      serial: { kind: "stdio" },
      watchdog: "none",
      debugExit: true,
    });
    expect(args.slice(0, 10)).toEqual([
      "-machine",
      "q35",
      "-accel",
      "kvm",
      "-cpu",
      "host",
      "-smp",
      "4",
      "-m",
      "4096",
    ]);
    expect(args).toContain("stdio,id=serial0,mux=on,signal=off");
    expect(args.join(" ")).toContain("-serial chardev:serial0 -mon chardev=serial0,mode=readline");
    expect(args).not.toContain("i6300esb");
    expect(args).toContain("ICH9-LPC.noreboot=false");
    expect(args).toContain("isa-debug-exit,iobase=0xf4,iosize=0x04");
    expect(args).not.toContain("-no-reboot");
    // A comma in a path is doubled, or QEMU would read the rest as another option.
    expect(args).toContain(
      "if=none,id=disk0,format=raw,file=/d/a,,b.img,cache=unsafe,discard=unmap,node-name=disk0-format,file.node-name=disk0-file",
    );
    expect(args).toContain("virtio-blk-pci,drive=disk0,id=disk0-dev,serial=S1,bootindex=2");
    expect(args.some((a) => a.startsWith("usb-storage"))).toBe(false);
  });

  it("builds an i440fx with an ib700 card: no chipset watchdog, nothing to find the card by", () => {
    const args = qemuArgs({
      firmware: FIRMWARE,
      machine: "pc",
      watchdog: "ib700",
      serial: { kind: "stdio" },
    }).join(" ");
    expect(args).toContain("-machine pc ");
    expect(args).toContain("-device ib700 -action watchdog=reset");
    expect(args).not.toContain("ICH9-LPC");
    expect(args).not.toContain("i6300esb");
  });

  it("writes the console to a file, and lets the guest write a stick when asked", () => {
    const args = qemuArgs({
      firmware: FIRMWARE,
      stick: "/s.img",
      stickWritable: true,
      serial: { kind: "file", path: "/tmp/serial.log" },
    });
    expect(args).toContain("file,id=serial0,path=/tmp/serial.log");
    expect(args).toContain("if=none,id=stick,format=raw,file=/s.img");
  });

  it("puts a disk behind a PCIe root port of its own when asked", () => {
    const args = qemuArgs({
      firmware: FIRMWARE,
      disks: [{ path: "/d/n.img", bus: "nvme", serial: "N", rootPort: true }],
      serial: { kind: "stdio" },
    });
    expect(
      args.slice(
        args.indexOf(
          "if=none,id=disk0,format=raw,file=/d/n.img,cache=unsafe,discard=unmap,node-name=disk0-format,file.node-name=disk0-file",
        ) - 1,
      ),
    ).toEqual([
      ...[
        "-drive",
        "if=none,id=disk0,format=raw,file=/d/n.img,cache=unsafe,discard=unmap,node-name=disk0-format,file.node-name=disk0-file",
      ],
      ...["-device", "pcie-root-port,id=disk0-port,chassis=1,slot=1"],
      ...["-device", "nvme,drive=disk0,id=disk0-dev,serial=N,bus=disk0-port,bootindex=2"],
    ]);
  });

  it("gives each NIC its own user-mode network: virtio-net or e1000e", () => {
    const args = qemuArgs({
      firmware: FIRMWARE,
      nics: ["virtio", "e1000e"],
      serial: { kind: "stdio" },
    });
    expect(args.slice(args.indexOf("-netdev"))).toEqual([
      ...["-netdev", "user,id=net0", "-device", "virtio-net-pci,netdev=net0,id=nic0"],
      ...["-netdev", "user,id=net1", "-device", "e1000e,netdev=net1,id=nic1"],
    ]);
    expect(qemuArgs({ firmware: FIRMWARE, serial: { kind: "stdio" } })).not.toContain("-netdev");
  });

  it("places a NIC by its spec: acpi-index, a root port, an address, multi-function", () => {
    const args = qemuArgs({
      firmware: FIRMWARE,
      nics: [
        { model: "virtio", acpiIndex: 1 },
        { model: "e1000e", rootPort: true, link: "down" },
        { model: "virtio", addr: "0x10.0", multifunction: true },
        { model: "virtio", addr: "0x10.1" },
        "e1000e",
        "usb",
      ],
      serial: { kind: "stdio" },
    });
    // biome-ignore format: one device per line
    expect(args.slice(args.indexOf("-netdev"))).toEqual([
      "-netdev", "user,id=net0", "-device", "virtio-net-pci,netdev=net0,id=nic0,acpi-index=1",
      "-device", "pcie-root-port,id=nic1-port,chassis=65,slot=65",
      "-netdev", "user,id=net1", "-device", "e1000e,netdev=net1,id=nic1,bus=nic1-port",
      "-netdev", "user,id=net2", "-device", "virtio-net-pci,netdev=net2,id=nic2,addr=0x10.0,multifunction=on",
      "-netdev", "user,id=net3", "-device", "virtio-net-pci,netdev=net3,id=nic3,addr=0x10.1",
      "-netdev", "user,id=net4", "-device", "e1000e,netdev=net4,id=nic4",
      "-netdev", "user,id=net5", "-device", "usb-net,bus=xhci.0,netdev=net5,id=nic5",
    ]);
    expect(() =>
      qemuArgs({
        firmware: FIRMWARE,
        nics: [{ model: "usb", rootPort: true }],
        serial: { kind: "stdio" },
      }),
    ).toThrow("nic0 is a USB NIC");
  });

  it("cables a NIC to another QEMU's by a UDP socket pair on 127.0.0.1", () => {
    const args = qemuArgs({
      firmware: FIRMWARE,
      nics: [
        {
          model: "virtio",
          socket: { localPort: 40001, peerPort: 40002 },
          mac: "52:54:00:5c:00:01",
          speedMbps: 10_000,
        },
        "virtio",
      ],
      serial: { kind: "stdio" },
    });
    // biome-ignore format: one device per line
    expect(args.slice(args.indexOf("-netdev"))).toEqual([
      "-netdev", "socket,id=net0,udp=127.0.0.1:40002,localaddr=127.0.0.1:40001",
      "-device", "virtio-net-pci,netdev=net0,id=nic0,mac=52:54:00:5c:00:01,speed=10000,duplex=full",
      "-netdev", "user,id=net1", "-device", "virtio-net-pci,netdev=net1,id=nic1",
    ]);
    expect(() =>
      qemuArgs({
        firmware: FIRMWARE,
        nics: [
          {
            model: "virtio",
            socket: { localPort: 1, peerPort: 2 },
            tap: { ifname: "t0", script: "/s" },
          },
        ],
        serial: { kind: "stdio" },
      }),
    ).toThrow("nic0 is a tap and a socket");
    expect(() =>
      qemuArgs({
        firmware: FIRMWARE,
        nics: [{ model: "e1000e", speedMbps: 1000 }],
        serial: { kind: "stdio" },
      }),
    ).toThrow("only virtio takes a speed");
  });

  it("boots a kernel directly: no flash, the kernel, initramfs and command line", () => {
    const args = qemuArgs({
      kernel: {
        kernel: "/k/vmlinuz",
        initrd: "/k/initrd.img",
        append: "console=ttyS0 sw.lag=802.3ad",
      },
      memoryMiB: 256,
      cpus: 1,
      serial: { kind: "file", path: "/tmp/sw.log" },
      watchdog: "none",
    });
    expect(args.some((a) => a.includes("pflash"))).toBe(false);
    expect(args.join(" ")).toContain(
      "-kernel /k/vmlinuz -initrd /k/initrd.img -append console=ttyS0 sw.lag=802.3ad",
    );
    expect(args.join(" ")).toContain(
      "-machine q35 -accel tcg -cpu max,erms=off,fsrm=off -smp 1 -m 256",
    );
    expect(() => qemuArgs({ serial: { kind: "stdio" } })).toThrow("it has neither");
  });

  it("refuses more AHCI disks than the controller has ports", () => {
    const disks = Array.from({ length: 7 }, (_, i) => ({ path: `/d/${i}`, bus: "ahci" as const }));
    expect(() => qemuArgs({ firmware: FIRMWARE, disks, serial: { kind: "stdio" } })).toThrow(
      "7 AHCI disks asked for, the controller has 6 ports",
    );
  });
});

// Debian 12's three descriptors (ovmf 2022.11), abridged to what the choice reads.
const DESCRIPTORS = {
  "40-edk2-x86_64-secure-enrolled.json": {
    "interface-types": ["uefi"],
    mapping: {
      device: "flash",
      executable: { filename: "CODE.ms.fd", format: "raw" },
      "nvram-template": { filename: "VARS.ms.fd", format: "raw" },
    },
    targets: [{ architecture: "x86_64", machines: ["pc-q35-*"] }],
    features: ["acpi-s3", "amd-sev", "enrolled-keys", "requires-smm", "secure-boot"],
  },
  "50-edk2-x86_64-secure.json": {
    "interface-types": ["uefi"],
    mapping: {
      device: "flash",
      executable: { filename: "CODE.secboot.fd", format: "raw" },
      "nvram-template": { filename: "VARS.fd", format: "raw" },
    },
    targets: [{ architecture: "x86_64", machines: ["pc-q35-*"] }],
    features: ["acpi-s3", "amd-sev", "requires-smm", "secure-boot"],
  },
  "60-edk2-x86_64.json": {
    "interface-types": ["uefi"],
    mapping: {
      device: "flash",
      executable: { filename: "CODE.fd", format: "raw" },
      "nvram-template": { filename: "VARS.fd", format: "raw" },
    },
    targets: [{ architecture: "x86_64", machines: ["pc-i440fx-*", "pc-q35-*"] }],
    features: ["acpi-s3", "amd-sev", "verbose-dynamic"],
  },
};

describe("requireOvmf", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "liken-ovmf-"));
    for (const [name, d] of Object.entries(DESCRIPTORS)) {
      const withPaths = structuredClone(d);
      withPaths.mapping.executable.filename = join(dir, d.mapping.executable.filename);
      withPaths.mapping["nvram-template"].filename = join(
        dir,
        d.mapping["nvram-template"].filename,
      );
      await writeFile(join(dir, name), JSON.stringify(withPaths));
    }
    for (const file of ["CODE.ms.fd", "VARS.ms.fd", "CODE.secboot.fd", "CODE.fd", "VARS.fd"]) {
      await writeFile(join(dir, file), "");
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("takes the first descriptor without Secure Boot and says why the others were skipped", async () => {
    expect(await requireOvmf(dir)).toEqual({
      code: join(dir, "CODE.fd"),
      varsTemplate: join(dir, "VARS.fd"),
      descriptor: join(dir, "60-edk2-x86_64.json"),
      smm: false,
      skipped: [
        {
          descriptor: join(dir, "40-edk2-x86_64-secure-enrolled.json"),
          reason: "has enrolled-keys, requires-smm, secure-boot (not plain)",
        },
        {
          descriptor: join(dir, "50-edk2-x86_64-secure.json"),
          reason: "has requires-smm, secure-boot (not plain)",
        },
      ],
    });
  });

  it("finds the Secure Boot builds: with no keys (setup mode) and with Microsoft's", async () => {
    const setup = await requireOvmf(dir, "setup-mode");
    expect(setup).toMatchObject({
      code: join(dir, "CODE.secboot.fd"),
      varsTemplate: join(dir, "VARS.fd"),
      smm: true,
    });
    expect(setup.skipped).toEqual([
      {
        descriptor: join(dir, "40-edk2-x86_64-secure-enrolled.json"),
        reason: "has enrolled-keys (not setup-mode)",
      },
    ]);
    expect(await requireOvmf(dir, "microsoft")).toMatchObject({
      code: join(dir, "CODE.ms.fd"),
      varsTemplate: join(dir, "VARS.ms.fd"),
      smm: true,
    });
  });

  it("names the package when nothing fits", async () => {
    await expect(requireOvmf(join(dir, "none"))).rejects.toThrow(
      `no OVMF firmware for q35 (plain) in ${join(dir, "none")}; install the Debian package ovmf`,
    );
  });

  it("skips descriptors for other machines and interfaces", () => {
    const base = DESCRIPTORS["60-edk2-x86_64.json"];
    expect(ovmfMismatch(base)).toBeUndefined();
    expect(ovmfMismatch({ ...base, "interface-types": ["bios"] })).toBe("not UEFI");
    expect(
      ovmfMismatch({ ...base, targets: [{ architecture: "aarch64", machines: ["virt-*"] }] }),
    ).toBe("not for x86_64 q35 machines");
    expect(ovmfMismatch({ ...base, mapping: { ...base.mapping, device: "memory" } })).toBe(
      "mapped as memory, not flash",
    );
  });
});

describe("runProbe", () => {
  it("boots OVMF to its boot manager under TCG", async () => {
    const probe = await runProbe("tcg");
    expect(probe.detail).toMatch(/^OVMF reached its boot manager in \d+\.\d s$/);
    expect(probe.ok).toBe(true);
  });
});

describe("findKvmFailure", () => {
  // What QEMU 7.2 printed on machines whose /dev/kvm runs real-mode code but not OVMF.
  it("finds the line of each way KVM fails a guest", () => {
    const paused = [
      "qemu-system-x86_64: warning: host doesn't support requested feature: CPUID.01H:ECX.pni [bit 0]",
      "KVM internal error. Suberror: 1",
      "extra data[0]: 0x0000000000000001",
    ].join("\n");
    expect(findKvmFailure(paused)).toBe("KVM internal error. Suberror: 1");
    const aborted = [
      "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69",
      "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3183: kvm_buf_set_msrs: Assertion `ret == cpu->kvm_msr_buf->nmsrs' failed.",
    ].join("\n");
    expect(findKvmFailure(aborted)).toBe(
      "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69",
    );
    expect(findKvmFailure("qemu-system-x86_64: terminating on signal 15")).toBeUndefined();
  });
});

describe("chooseAccel", () => {
  it("takes --accel first, then LIKEN_ACCEL, and refuses a bad LIKEN_ACCEL", async () => {
    const saved = process.env.LIKEN_ACCEL;
    try {
      process.env.LIKEN_ACCEL = "kvm";
      expect(await chooseAccel("tcg")).toEqual({ accel: "tcg", why: "asked for" });
      expect(await chooseAccel()).toEqual({ accel: "kvm", why: "LIKEN_ACCEL=kvm" });
      process.env.LIKEN_ACCEL = "fast";
      await expect(chooseAccel()).rejects.toThrow(
        "LIKEN_ACCEL=fast is not an accelerator (set it to tcg or kvm, or unset it)",
      );
    } finally {
      if (saved === undefined) delete process.env.LIKEN_ACCEL;
      else process.env.LIKEN_ACCEL = saved;
    }
  });
});
