// The cluster manifest as the rest of the project sees it: validated, defaults filled in,
// sizes in bytes, deep-readonly. Key names are the file's own, so the JSON that
// `manifest check --json` prints reads like the TOML an operator wrote.

import { type Arch, DEFAULT_ARCH } from "../common/arch.ts";
import type { InterfaceDeclaration } from "../common/network-declaration.ts";

export type MachineRole = "leader" | "follower";
export type RebootPolicy = "Automatic" | "Manual";

/** Picks the system disk by stable properties; string values are globs (`*`, `?`). */
export interface DiskSelector {
  readonly serial?: string;
  readonly model?: string;
  readonly wwn?: string;
  readonly transport?: string;
  readonly path?: string;
  readonly min_size?: number;
  readonly max_size?: number;
  /** The system partitions on the two first eligible disks the selector matches (docs/manifest.md). */
  readonly mirror?: boolean;
}

export interface Layout {
  readonly esp: number;
  readonly slot: number;
  readonly crash_journal: number;
  readonly state: number;
}

export interface StorageRole {
  readonly role: string;
  /** Bytes, or "rest": what is left on the disk the role lands on. */
  readonly size: number | "rest";
}

/** A kernel module the machine loads with parameters before drivers load by device. */
export interface DeclaredModule {
  readonly name: string;
  /** Space-separated `NAME=VALUE` words, as modprobe takes them after the module's name. */
  readonly parameters: string;
}

export interface Machine {
  readonly name: string;
  readonly role: MachineRole;
  readonly ports: readonly string[];
  /** IPv4 or IPv6 addresses, at most 3; `[]` when none are declared. */
  readonly nameservers: readonly string[];
  /** The declared network, in the order written; `[]`: nothing beyond the ports' wait. */
  readonly interfaces: readonly InterfaceDeclaration[];
  readonly modules: readonly DeclaredModule[];
  readonly system_disk?: DiskSelector;
  readonly reboot_policy: RebootPolicy;
  /** The hardware that is this machine, for liken.install=auto. */
  readonly match?: MachineMatch;
  /** Its processor's arch, when the manifest names one; machineArch() reads amd64 without. */
  readonly arch?: Arch;
}

/** The arch of `machine`: amd64 unless the manifest says otherwise. */
export function machineArch(machine: Pick<Machine, "arch">): Arch {
  return machine.arch ?? DEFAULT_ARCH;
}

/** Every key given must agree; `mac` agrees when any NIC of the machine has one of them. */
export interface MachineMatch {
  /** Lower case, colons. */
  readonly mac?: readonly string[];
  readonly serial?: string;
  /** Lower case. */
  readonly uuid?: string;
}

export interface Manifest {
  readonly cluster: string;
  readonly release: { readonly version: string };
  readonly layout: Layout;
  readonly storage: readonly StorageRole[];
  readonly machines: readonly Machine[];
  /** Present when the cluster's machines boot with Secure Boot: its images must be signed. */
  readonly secureBoot?: SecureBootSettings;
  /** Present with `tpm = true`: the state partition and storage roles are LUKS2. */
  readonly encryption?: EncryptionSettings;
}

export interface EncryptionSettings {
  /** The volumes' key is sealed by the machine's TPM 2.0 to PCR 7. */
  readonly tpm: true;
  /** Where the one recovery key goes at install: the unattended report, or the screen. */
  readonly recovery: "report" | "console";
}

export interface SecureBootSettings {
  /**
   * Keep Microsoft's UEFI CA in db beside the cluster's key (option ROMs need it); undefined:
   * the stick decides on each machine from the option ROMs its firmware ran.
   */
  readonly keepMicrosoft: boolean | undefined;
  /** At once in setup mode, by the stick's Linux, or from an entry in systemd-boot's menu. */
  readonly enroll: "force" | "manual";
}

/** One problem, located in the file: `FILE:LINE:COL: message (hint)`. */
export interface ManifestProblem {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** What is wrong. */
  readonly message: string;
  /** What is allowed, or what to do. */
  readonly hint: string;
}

export type ManifestResult =
  | {
      readonly ok: true;
      readonly manifest: Manifest;
      readonly warnings: readonly ManifestProblem[];
    }
  | {
      readonly ok: false;
      readonly errors: readonly ManifestProblem[];
      readonly warnings: readonly ManifestProblem[];
    };
