// The install's policy, decided before anything is written and without I/O: whether another
// install is writing a disk, whether a confirmed plan still holds, whether this machine is
// already installed, whether a wipe meets data liken did not write, the layout, the claim
// every disk gets, and the steps that write it. The one planner: `install` runs what this
// returns and nothing else, and `plan`, the menu and the hardware report show it.
import type { Claim } from "../../formats/claim.ts";
import { claimOwner } from "../../formats/claim-words.ts";
import type { Disk } from "../../hardware/disks/types.ts";
import type { TpmPresence } from "../../hardware/tpm/presence.ts";
import { installSteps, type PlannedStep } from "../steps.ts";
import { confirmedDisksDrift, confirmedPlanDrift } from "./confirmed.ts";
import { type PlanInput, planLayout } from "./plan-layout.ts";
import type { Layout, PlanFailure, PlanResult } from "./types.ts";

export interface InstallPlanInput extends PlanInput {
  /** The paths the operator named; empty means every disk of the machine. */
  readonly paths: readonly string[];
  /** Now, in seconds since the epoch: a fresh install's start time. */
  readonly now: number;
  /** The disks another install is writing now, each with that install's pid (installer/lock.ts). */
  readonly writing?: ReadonlyMap<string, number>;
  /**
   * The layout a person confirmed (the menu, `install --plan`): the plan holds only while
   * the disks are still what it was made for, and comes out the same.
   */
  readonly confirmed?: Layout;
  /** This machine's TPM; null or undefined: it has none. */
  readonly tpm?: TpmPresence | null;
  /** Where whoever installs can put a recovery key: the unattended report, a screen. */
  readonly recoveryTo?: readonly ("report" | "console")[];
}

/** The claim of an install without its per-disk fields. */
export type InstallClaim = Omit<Claim, "use" | "complete" | "generation">;

export type InstallPlan =
  | {
      readonly kind: "install";
      readonly layout: Layout;
      readonly claim: InstallClaim;
      /** From lock to complete: what runs once the layout is planned. */
      readonly steps: readonly PlannedStep[];
    }
  /**
   * This machine's complete install of this release is on `disk`: nothing to write.
   * `refusal` says so to whoever shows a layout or why there is none (the menu, the report).
   */
  | { readonly kind: "done"; readonly disk: Disk; readonly refusal: PlanFailure }
  | { readonly kind: "refused"; readonly failure: PlanFailure };

export function planInstall(input: InstallPlanInput): InstallPlan {
  const busy = input.disks.find((d) => input.writing?.has(d.path));
  if (busy) {
    return refused({
      reason: "DiskBusy",
      message: `${busy.path} is being written by another install (process ${input.writing?.get(busy.path)})`,
      hint: "wait for that install to finish, then run this one again if it is still needed",
      considered: [],
    });
  }
  const { confirmed } = input;
  const changed = confirmed && confirmedDisksDrift(confirmed, input.disks);
  if (changed) return disksChanged(changed);
  const done = findCompleteInstall(input);
  if (done) return done;
  const foreign = input.wipe
    ? input.disks.filter((d) => d.verdict === "foreign" && input.paths.includes(d.path))
    : [];
  if (foreign.length > 0) {
    // Wipe and reinstall names disks to erase: one that holds data liken did not write stops it all.
    const list = foreign.map((d) => `${d.path} (${d.reasons.join(", ")})`).join("; ");
    return refused({
      reason: "DiskNotLiken",
      message: `wipe and reinstall refuses disks holding data liken did not write: ${list}`,
      hint: "leave those disks out; liken erases only disks it wrote",
      considered: [],
    });
  }
  const alone = input.wipe ? mirrorMemberAlone(input) : undefined;
  if (alone) return refused(alone);
  const keys = input.manifest.encryption ? encryptionRefusal(input) : undefined;
  if (keys) return refused(keys);
  const result = planLayout(input);
  if (!result.ok) return refused(result.failure);
  const layout = input.manifest.encryption
    ? { ...result.layout, encryption: input.manifest.encryption }
    : result.layout;
  const drift = confirmed && confirmedPlanDrift(confirmed, layout);
  if (drift) return disksChanged(drift);
  // A resumed install keeps its start time.
  const resumed = input.disks.find((d) => d.claim?.installId === layout.installId);
  const createdAt = resumed?.claim ? Date.parse(resumed.claim.createdAt) / 1000 : input.now;
  const erased = layout.disks.filter((d) => d.action === "erase-and-write").map((d) => d.path);
  const steps = installSteps(layout.release, erased).filter(
    (s) => s.step !== "preflight" && s.step !== "plan",
  );
  return {
    kind: "install",
    layout,
    claim: {
      cluster: layout.cluster,
      machine: layout.machine,
      installId: layout.installId,
      release: layout.release,
      createdAt,
    },
    steps,
  };
}

/** The plan as a layout or the reason there is none: what `plan --json`, the menu and the report show. */
export function planResultOf(plan: InstallPlan): PlanResult {
  switch (plan.kind) {
    case "install":
      return { ok: true, layout: plan.layout };
    case "done":
      return { ok: false, failure: plan.refusal };
    case "refused":
      return { ok: false, failure: plan.failure };
  }
}

// A complete install of this machine: the same release is done; another needs a wipe.
function findCompleteInstall(input: InstallPlanInput): InstallPlan | undefined {
  if (input.wipe) return undefined;
  const done = input.disks.find(
    (d) =>
      d.verdict === "liken" &&
      d.claim?.complete &&
      d.claim.use === "system" &&
      d.claim.cluster === input.manifest.cluster &&
      d.claim.machine === input.machine,
  );
  if (!done?.claim) return undefined;
  // An install killed while it marked its disks complete is finished, not done.
  const unfinished = input.disks.some(
    (d) =>
      d.verdict === "liken" && d.claim?.installId === done.claim?.installId && !d.claim?.complete,
  );
  if (unfinished) return undefined;
  const version = input.release?.version ?? input.manifest.release.version;
  const { cluster, machine, release } = done.claim;
  if (release === version) {
    const why = `holds the liken install of ${cluster}/${machine}`;
    const blankToo = input.disks.some((d) => d.verdict === "blank");
    return {
      kind: "done",
      disk: done,
      refusal: {
        reason: "DiskNotBlank",
        message: blankToo
          ? `${done.path} ${why} already: install as writes nothing`
          : `no blank disk: ${done.path} ${why}`,
        hint: `use wipe and reinstall as ${input.machine} to replace it`,
        considered: [
          {
            path: done.path,
            verdict: done.verdict,
            reasons: done.reasons,
            why: `${why}, release ${release}: install as writes nothing`,
          },
        ],
      },
    };
  }
  return refused({
    reason: "DiskNotBlank",
    message: `${done.path} holds release ${release} of ${input.machine}`,
    hint: `use wipe and reinstall to install ${version}`,
    considered: [],
  });
}

// A wipe erases both members of a mirror or neither: a member erased alone would leave the
// other to come back later as a half of an install that is gone.
function mirrorMemberAlone(input: InstallPlanInput): PlanFailure | undefined {
  const erasable = (c: Disk["claim"]) =>
    c !== undefined &&
    (c.cluster === input.manifest.cluster || (input.wipeClusters ?? []).includes(c.cluster));
  for (const d of input.disks) {
    const member = d.claim?.mirror;
    if (d.verdict !== "liken" || !member || !erasable(d.claim)) continue;
    const peerHere = input.disks.some(
      (o) => o !== d && o.claim?.installId === d.claim?.installId && o.claim?.mirror,
    );
    if (peerHere) continue;
    const other = member.peer.serial ?? member.peer.wwn ?? `${member.peer.path} at install time`;
    return {
      reason: "MirrorMemberMissing",
      message: `wipe and reinstall would erase ${d.path}, ${claimOwner(d.claim as NonNullable<Disk["claim"]>)}, without its other member (${other}), which is not here`,
      hint: 'attach the other member (and name it too, when naming disks) so that both are erased; if it is lost for good, see "A mirrored machine lost a disk" in docs/troubleshoot.md',
      considered: [],
    };
  }
  return undefined;
}

function disksChanged(what: string): InstallPlan {
  return refused({
    reason: "DiskChanged",
    message: `the disks changed since the plan was confirmed: ${what}`,
    hint: "review the plan again, and confirm the new one",
    considered: [],
  });
}

// [encryption] needs a TPM 2.0 to seal the key to, and a place for the recovery key.
function encryptionRefusal(input: InstallPlanInput): PlanFailure | undefined {
  if (input.tpm?.version !== "2.0") {
    const has = input.tpm ? `a TPM ${input.tpm.version ?? "of an unknown version"}` : "no TPM";
    return {
      reason: "NoTpm",
      message: `the manifest encrypts the disks with the TPM ([encryption] tpm = true), and this machine has ${has}, not a TPM 2.0`,
      hint: "turn the TPM 2.0 on in the firmware's setup (Intel PTT, AMD fTPM, or a TPM module), or remove [encryption] from the manifest",
      considered: [],
    };
  }
  const place = input.manifest.encryption!.recovery;
  if ((input.recoveryTo ?? []).includes(place)) return undefined;
  return {
    reason: "RecoveryKeyNowhere",
    message:
      place === "report"
        ? 'the manifest sends the recovery key with the unattended report (recovery = "report"), and this install sends no report'
        : 'the manifest shows the recovery key on the screen (recovery = "console"), and this install has none',
    hint:
      place === "report"
        ? 'install unattended with liken.report=URL, or set recovery = "console" to see it on the screen'
        : 'install from the menu, or set recovery = "report" and give liken.report=URL',
    considered: [],
  };
}

function refused(failure: PlanFailure): InstallPlan {
  return { kind: "refused", failure };
}
