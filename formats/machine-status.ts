// status/status.json on the state partition (and /run/liken/status.json): the installed
// machine's status document (docs/design.md section 7), as agent/status.ts builds it at
// every boot, and the one reader the next boot and `inspect` use.
import type { BondMode, InterfaceKind } from "../common/network-declaration.ts";
import type { Slot } from "./boot-entries.ts";
import type { Rejection } from "./boot-record.ts";
import type { CrashRecord } from "./journal-records.ts";
import { withCurrentSpellings } from "./old-spellings.ts";
import type { SecureBootState } from "./secure-boot-vars.ts";
import { jsonDocumentText, jsonObjectIn } from "./state-partition.ts";

export type MachinePhase = "Running" | "Rebooting" | "Failed";
export type ConditionType =
  | "Ready"
  | "RejectedLastBoot"
  | "RebootPending"
  | "StagingRejected"
  | "PortsReady"
  | "ModuleParametersApplied"
  | "NetworkReady"
  | "Downloading"
  | "StagingFailed"
  /** Only on a machine whose system disk is mirrored (identity.json's `mirror`). */
  | "SystemDiskMirrored"
  /** Only on a machine whose state partition is encrypted ([encryption]). */
  | "DiskEncrypted";
export type ConditionStatus = "True" | "False";

export interface Condition {
  readonly type: ConditionType;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
}

/** One entry of status.modules. */
export interface ModuleStatus {
  readonly name: string;
  readonly parameters: Readonly<Record<string, string>>;
}

/** One declared interface as the machine holds it after the boot applied the declaration. */
export interface NetworkInterfaceStatus {
  readonly name: string;
  readonly kind: InterfaceKind;
  /** up: administratively up with carrier; missing: not on this machine, or not built. */
  readonly state: "up" | "down" | "missing";
  readonly mtu: number | null;
  /** The addresses the interface holds, in CIDR form: static ones that took and the DHCP lease. */
  readonly addresses: readonly string[];
  /** DHCP was declared for it (the lease, if any, is among the addresses). */
  readonly dhcp: boolean;
  readonly bond?: {
    readonly mode: BondMode;
    /** Each declared port: carrier, and whether it carries the bond's traffic now. */
    readonly members: readonly {
      readonly name: string;
      readonly carrier: boolean;
      readonly active: boolean;
    }[];
  };
}

/** status.network: the declared network as the machine holds it. */
export interface NetworkStatus {
  /** In the order declared. */
  readonly interfaces: readonly NetworkInterfaceStatus[];
  /** What resolv.conf names, as declared. */
  readonly nameservers: readonly string[];
}

/** status.encryption: the LUKS2 volumes of an encrypted machine as this boot opened them. */
export interface EncryptionStatus {
  readonly tpm: true;
  /** The PCRs the key is sealed to. */
  readonly pcrs: readonly number[];
  /** The volumes opened: "state", then each storage role's name. */
  readonly opened: readonly string[];
  /** What released the key; absent when nothing did (the boot held or the trial failed). */
  readonly openedBy?: "tpm" | "recovery-key";
}

export interface BootRoot {
  readonly partUuid: string;
  readonly verity: boolean;
}

export interface MachineStatus {
  readonly apiVersion: "liken.dev/v1";
  readonly kind: "MachineStatus";
  readonly phase: MachinePhase;
  readonly version: string;
  readonly slot: Slot;
  readonly conditions: readonly Condition[];
  readonly boot: {
    readonly slot: Slot;
    readonly version: string;
    /** This boot was a release's one trial. */
    readonly trial: boolean;
    readonly systemRejection: Rejection | null;
    /** The slot partition the root was mounted from, and whether dm-verity checks its reads. */
    readonly root: BootRoot;
    /** The watchdog that armed this trial (the kernel's name for it); null when none did or no trial. */
    readonly watchdog: string | null;
    /** The firmware's Secure Boot state at this boot; null without UEFI variables. */
    readonly secureBoot: SecureBootState | null;
  };
  readonly lastCrash: CrashRecord | null;
  /** Each declared module's parameters as the kernel reads them back. */
  readonly modules: readonly ModuleStatus[];
  /** The declared network as applied at this boot; null when the machine declares none. */
  readonly network: NetworkStatus | null;
  /** Only on an encrypted machine. No key material: what opened, and with what. */
  readonly encryption?: EncryptionStatus;
  readonly updatedAt: string;
  readonly bootId: string;
}

/**
 * The document as the last boot wrote it; null when it is not JSON or not an object. An
 * older release's spellings read as today's. The next status takes only its conditions
 * (when each changed), so those are checked: one without its fields is dropped. The rest
 * is as the disk holds it (a power loss, an older release, a person's edit), so a reader
 * that shows it to people must not trust a field's type.
 */
export function parseMachineStatus(text: string): MachineStatus | null {
  const value = jsonObjectIn(text);
  if (!value) return null;
  const conditions = Array.isArray(value.conditions)
    ? value.conditions.filter((c: unknown) => {
        const x = c as Record<string, unknown> | null;
        return (
          typeof x === "object" &&
          x !== null &&
          typeof x.type === "string" &&
          typeof x.status === "string" &&
          typeof x.lastTransitionTime === "string"
        );
      })
    : [];
  return { ...withCurrentSpellings(value), conditions } as unknown as MachineStatus;
}

export function machineStatusText(status: MachineStatus): string {
  return jsonDocumentText(status);
}
