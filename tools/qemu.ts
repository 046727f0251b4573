// qemu-system-x86_64: the virtual machines of the QEMU tests and of `liken-stick vm`.
// Firmware is OVMF (no Secure Boot), acceleration TCG: KVM does not work on the machines
// this project runs on (docs/image.md).
import { type StartedProcess, startProcess } from "./exec.ts";

export const OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd";
export const OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd";

export type DiskBus = "virtio" | "nvme" | "ahci";

export interface VmSpec {
  /** This VM's own copy of OVMF_VARS: boot entries and pstore records live there. */
  readonly varsFile: string;
  /** Attached as a removable USB stick, first in the boot order. */
  readonly stick?: string;
  readonly disks: readonly {
    readonly path: string;
    readonly bus: DiskBus;
    readonly serial?: string;
  }[];
  /** The serial console: a file the harness reads, or "stdio" for a person. */
  readonly serial: { readonly file: string } | "stdio";
  readonly qmpSocket?: string;
  readonly memoryMiB?: number;
  /** Exit instead of rebooting, so the caller sees each reboot. */
  readonly noReboot?: boolean;
}

/** The command line for `spec`: data, so tests can read it. */
export function qemuArgs(spec: VmSpec): string[] {
  const args = [
    "-machine",
    "q35",
    "-accel",
    "tcg",
    "-cpu",
    "max",
    "-smp",
    "2",
    "-m",
    String(spec.memoryMiB ?? 2048),
    "-nodefaults", // no default NIC, VGA or CD-ROM: only what the spec names
    "-display",
    "none",
    "-drive",
    `if=pflash,format=raw,readonly=on,file=${OVMF_CODE}`,
    "-drive",
    `if=pflash,format=raw,file=${spec.varsFile}`,
    // QEMU's watchdog: a release's trial boot arms it, and a hang ends in a reset.
    "-device",
    "i6300esb",
    "-action",
    "watchdog=reset",
  ];
  if (spec.serial === "stdio") args.push("-serial", "mon:stdio");
  else
    args.push("-chardev", `file,id=console,path=${spec.serial.file}`, "-serial", "chardev:console");
  if (spec.qmpSocket) args.push("-qmp", `unix:${spec.qmpSocket},server=on,wait=off`);
  if (spec.noReboot) args.push("-no-reboot");
  // bootindex makes OVMF put these first in BootOrder (it rebuilds BootOrder from QEMU's
  // fw_cfg "bootorder" list): the stick, then the disks in the order given.
  let boot = 1;
  if (spec.stick) {
    args.push(
      "-device",
      "qemu-xhci,id=xhci",
      "-drive",
      `file=${spec.stick},format=raw,if=none,id=stick`,
      "-device",
      `usb-storage,bus=xhci.0,drive=stick,removable=on,id=stick-dev,bootindex=${boot++}`,
    );
  }
  spec.disks.forEach((d, i) => {
    const id = `disk${i}`;
    args.push("-drive", `file=${d.path},format=raw,if=none,id=${id}`);
    if (d.bus === "virtio") args.push("-device", `virtio-blk-pci,drive=${id},bootindex=${boot++}`);
    if (d.bus === "nvme")
      args.push(
        "-device",
        `nvme,drive=${id},serial=${d.serial ?? `LIKEN${i}`},bootindex=${boot++}`,
      );
    if (d.bus === "ahci") {
      if (!args.includes("ahci,id=ahci")) args.push("-device", "ahci,id=ahci");
      args.push("-device", `ide-hd,bus=ahci.${i % 6},drive=${id},bootindex=${boot++}`);
    }
  });
  return args;
}

export function startQemu(spec: VmSpec, logFile: string): StartedProcess {
  return startProcess("qemu-system-x86_64", qemuArgs(spec), { logFile });
}
