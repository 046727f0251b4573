// The installed machine's status document (docs/design.md section 7), built as a value: every
// field a closed enum, a number, a version, a slot or a time, except the messages, which
// are sanitized to one line. A condition keeps its lastTransitionTime while its status holds.
import { sanitizeMessage } from "../common/sanitize.ts";
import type {
  BootRoot,
  Condition,
  EncryptionStatus,
  MachinePhase,
  MachineStatus,
  ModuleStatus,
  NetworkStatus,
} from "../formats/machine-status.ts";
import type { SecureBootState } from "../formats/secure-boot-vars.ts";
import type { ConditionPart } from "./declared-modules.ts";
import type { CrashRecord, Rejection, Slot, StagingRejectedReason } from "./types.ts";

export type { Condition, MachineStatus };

export interface StatusInput {
  readonly now: string;
  readonly bootId: string;
  readonly slot: Slot;
  readonly version: string;
  readonly trial: boolean;
  readonly phase: MachinePhase;
  /** Why the machine is not ready; absent when it is. */
  readonly notReady?: { readonly reason: string; readonly message: string };
  readonly rejection: Rejection | null;
  /** A staged release waits for a person (reboot_policy Manual). */
  readonly rebootPending?: { readonly slot: Slot; readonly version: string };
  readonly stagingRejected?: { readonly reason: StagingRejectedReason; readonly message: string };
  readonly lastCrash: CrashRecord | null;
  readonly previous: MachineStatus | null;
  readonly root: BootRoot;
  readonly watchdog: string | null;
  readonly secureBoot: SecureBootState | null;
  readonly network: BootNetwork;
  /** SystemDiskMirrored (agent/mirror-condition.ts); absent on a machine whose system is on one disk. */
  readonly mirror?: ConditionPart;
  /** [encryption]: status.encryption and DiskEncrypted (agent/volumes.ts); absent otherwise. */
  readonly encryption?: EncryptionStatus;
  readonly encrypted?: ConditionPart;
}

/** What the boot's modules, ports and declared network came to (agent/network.ts). */
export interface BootNetwork {
  readonly modules: readonly ModuleStatus[];
  readonly modulesApplied: ConditionPart;
  readonly portsReady: ConditionPart;
  /** The declared network as the machine holds it; null when none is declared. */
  readonly applied: NetworkStatus | null;
  readonly networkReady: ConditionPart;
}

export function machineStatus(input: StatusInput): MachineStatus {
  const keep = (c: Omit<Condition, "lastTransitionTime">): Condition =>
    keepTransition(input.previous, c, input.now);
  const rejection = input.rejection && {
    ...input.rejection,
    message: sanitizeMessage(input.rejection.message),
  };
  const conditions: Condition[] = [
    keep(
      input.notReady
        ? { type: "Ready", status: "False", ...input.notReady }
        : {
            type: "Ready",
            status: "True",
            reason: "BootComplete",
            message: `liken ${input.version} runs from slot ${input.slot}`,
          },
    ),
    keep(
      rejection
        ? {
            type: "RejectedLastBoot",
            status: "True",
            reason: rejection.reason,
            message: `release ${rejection.version} failed its trial boot in slot ${rejection.slot}: ${rejection.message}`,
          }
        : { type: "RejectedLastBoot", status: "False", reason: "NoRejection", message: "" },
    ),
    keep(rebootPendingCondition(input.rebootPending)),
    keep(stagingRejectedCondition(input.stagingRejected)),
    keep({ type: "PortsReady", ...input.network.portsReady }),
    keep({ type: "ModuleParametersApplied", ...input.network.modulesApplied }),
    keep({ type: "NetworkReady", ...input.network.networkReady }),
    ...(input.mirror ? [keep({ type: "SystemDiskMirrored", ...input.mirror })] : []),
    ...(input.encrypted ? [keep({ type: "DiskEncrypted", ...input.encrypted })] : []),
  ];
  return {
    apiVersion: "liken.dev/v1",
    kind: "MachineStatus",
    phase: input.phase,
    version: input.version,
    slot: input.slot,
    conditions,
    boot: {
      slot: input.slot,
      version: input.version,
      trial: input.trial,
      systemRejection: rejection,
      root: input.root,
      watchdog: input.watchdog && sanitizeMessage(input.watchdog),
      secureBoot: input.secureBoot,
    },
    lastCrash: input.lastCrash && {
      ...input.lastCrash,
      lines: input.lastCrash.lines.map((l) => sanitizeMessage(l)),
    },
    modules: input.network.modules.map((m) => ({
      name: m.name,
      parameters: Object.fromEntries(
        Object.entries(m.parameters).map(([k, v]) => [k, sanitizeMessage(v)]),
      ),
    })),
    network: input.network.applied,
    ...(input.encryption ? { encryption: input.encryption } : {}),
    updatedAt: input.now,
    bootId: input.bootId,
  };
}

/** A condition as written: its lastTransitionTime kept from `previous` while its status holds. */
export function keepTransition(
  previous: MachineStatus | null,
  c: Omit<Condition, "lastTransitionTime">,
  now: string,
): Condition {
  const before = previous?.conditions?.find((p) => p.type === c.type);
  return {
    ...c,
    message: sanitizeMessage(c.message),
    lastTransitionTime: before && before.status === c.status ? before.lastTransitionTime : now,
  };
}

export function rebootPendingCondition(
  pending: StatusInput["rebootPending"] | null,
): Omit<Condition, "lastTransitionTime"> {
  return pending
    ? {
        type: "RebootPending",
        status: "True",
        reason: "StagedRelease",
        message: `release ${pending.version} is staged in slot ${pending.slot} and boots once as a trial at the next reboot`,
      }
    : { type: "RebootPending", status: "False", reason: "NothingStaged", message: "" };
}

export function stagingRejectedCondition(
  rejected: StatusInput["stagingRejected"] | null,
): Omit<Condition, "lastTransitionTime"> {
  return rejected
    ? { type: "StagingRejected", status: "True", ...rejected }
    : { type: "StagingRejected", status: "False", reason: "NoRejection", message: "" };
}
