// What differs between the two boards a VmSpec can be: q35 for amd64, QEMU's virt for arm64
// (TCG on this x86-64 host). args.ts builds the command line from these; refusedOnVirt()
// names the spec fields virt cannot carry, so a wrong spec fails before QEMU starts.
import type { Arch } from "../../common/arch.ts";
import { nicId, nicSpec, type VmSpec } from "./machine.ts";

export interface Board {
  /** The QEMU program. */
  readonly qemu: string;
  /** The CPU model under TCG. */
  readonly tcgCpu: string;
  /** The TPM's interface: a PC's CRB, or virt's memory-mapped TIS (virt has no ISA bus). */
  readonly tpmDevice: string;
}

// Without ERMS and FSRM ("fast" rep movsb/stosb): TCG runs a rep string instruction one
// element per step, and with ERMS the kernel zeroes every page it hands out (Debian's
// init_on_alloc) a byte per step with rep stosb, and glibc copies and fills with rep movsb
// and stosb. Measured with the kernel's profile=4 from the stick's boot to its menu:
// clear_page_erms was 16 % of the kernel's time to /init and 31 % of the root's time to
// the menu; with rep stosq (these flags off) 5 and 14 % (docs/image.md, Speed). The guest
// runs the code a server without these flags runs; only the emulator's speed differs.
const AMD64_TCG_CPU = "max,erms=off,fsrm=off";

// Neoverse N1, the core of Ampere's Altra and AWS's Graviton2: an Arm server's CPU, not
// QEMU's `max`, whose extra features (SVE, SME, MTE, pointer authentication) no such server
// has and whose emulation cost time and once killed the stick's Node.js with SIGILL under
// TCG right after its report was sent.
const ARM64_TCG_CPU = "neoverse-n1";

const BOARDS: Readonly<Record<Arch, Board>> = {
  amd64: { qemu: "qemu-system-x86_64", tcgCpu: AMD64_TCG_CPU, tpmDevice: "tpm-crb" },
  arm64: { qemu: "qemu-system-aarch64", tcgCpu: ARM64_TCG_CPU, tpmDevice: "tpm-tis-device" },
};

export function boardOf(spec: Pick<VmSpec, "arch">): Board {
  return BOARDS[spec.arch ?? "amd64"];
}

/**
 * The first field of an arm64 `spec` that QEMU's virt cannot carry, as a sentence that says
 * what to change, or undefined. Pure.
 */
export function refusedOnVirt(spec: VmSpec): string | undefined {
  if ((spec.arch ?? "amd64") !== "arm64") return undefined;
  const fix = "leave it out for arm64";
  if (spec.machine !== undefined) {
    return `machine ${spec.machine} is a PC board; arm64 VMs are QEMU's virt: ${fix}`;
  }
  if (spec.firmware?.smm) return `SMM is a PC's; AAVMF has no SMM build: ${fix}`;
  if (spec.watchdog === "ib700") {
    return "the ib700 watchdog is an ISA card; virt has no ISA bus: take i6300esb or none";
  }
  if (spec.debugExit) return `isa-debug-exit is an ISA device; virt has no ISA bus: ${fix}`;
  const indexed = (spec.nics ?? []).findIndex((nic) => nicSpec(nic).acpiIndex !== undefined);
  if (indexed >= 0) {
    // QEMU 7.2 takes acpi-index on virt and gives the guest nothing: no acpi_index in sysfs,
    // on the root bus or behind a root port.
    return `${nicId(indexed)}'s acpiIndex never reaches an arm64 guest (virt has no ACPI PCI hotplug): ${fix}`;
  }
  return undefined;
}
