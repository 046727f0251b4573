// `install as` and `wipe and reinstall as`: executes the planner's layout and nothing else.
// The writes are ordered so that, killed at any instant, every target disk reads `blank` or
// `liken` (partial): the claim goes first and its complete flag last, and a second run of
// the same install redoes every step with the same bytes.
import { randomUUID } from "node:crypto";
import { channel } from "node:diagnostics_channel";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../common/atomic-file.ts";
import { LikenError } from "../common/errors.ts";
import { MIB } from "../common/size.ts";
import { parseGpt } from "../formats/gpt.ts";
import type { IdentityMirrorMember } from "../formats/identity.ts";
import {
  type InstallerStatus,
  type InstallFailureReason,
  installerStatus,
  installerStatusText,
} from "../formats/installer-status.ts";
import { journalHeader } from "../formats/journal-header.ts";
import { type ReleaseInfo, requireRelease, verifyRelease } from "../formats/release.ts";
import { hashRegion, writeImage, zeroRegion } from "../formats/write-image.ts";
import { type Disk, inventoryDisks, type MissingDrivers } from "../hardware/disks/index.ts";
import { missingDriversOf } from "../hardware/missing-drivers.ts";
import { readTpmPresence } from "../hardware/tpm/presence.ts";
import type { Manifest } from "../manifest/types.ts";
import { LUKS_DATA_OFFSET } from "../tools/cryptsetup.ts";
import { readBootId } from "./boot-id.ts";
import { writeClaimCopies } from "./claim-write.ts";
import { encryptVolume, makeVolumeKeys, type Volume, type VolumeKeys } from "./encrypt-volume.ts";
import { eraseDisk } from "./erase.ts";
import { buildEsp } from "./esp.ts";
import { type DiskHandle, installsWriting, lockDisk } from "./lock.ts";
import { writeTable } from "./partition-table.ts";
import { plannedDiskDrift } from "./plan/disk-drift.ts";
import { type InstallClaim, type InstallPlan, planInstall } from "./plan/plan-install.ts";
import type { Layout, PlannedDisk, PlannedPartition } from "./plan/types.ts";
import { buildState } from "./state.ts";
import { holdStatusFile, type StatusHold } from "./status-file.ts";
import { stepFailureOf } from "./step-failure.ts";
import { type InstallStep, type PlannedStep, stepOf } from "./steps.ts";

export type { InstallStep };

/** A plan with disks to write. */
type PlanToRun = Extract<InstallPlan, { kind: "install" }>;

/**
 * Where each step is published as it begins, its status document written: for whoever
 * watches from inside the process (node:diagnostics_channel; the install tests' kill points).
 */
export const INSTALL_STEP_CHANNEL = "liken:install:step";
export interface InstallStepMessage {
  readonly step: InstallStep;
}
const step$ = channel(INSTALL_STEP_CHANNEL);

/** Where each disk's claim is published once written and flushed (the kill tests). */
export const CLAIM_CHANNEL = "liken:install:claim";
export interface ClaimMessage {
  readonly disk: string;
  readonly complete: boolean;
}
const claim$ = channel(CLAIM_CHANNEL);

export type InstallEvent =
  | { readonly type: "step"; readonly step: InstallStep; readonly what: string }
  | {
      readonly type: "progress";
      readonly step: InstallStep;
      readonly done: number;
      readonly total: number;
    };

export interface InstallRequest {
  readonly manifest: Manifest;
  readonly machine: string;
  readonly releaseDir: string;
  readonly wipe: boolean;
  /** Other clusters whose disks the wipe may erase (`--wipe-cluster`). */
  readonly wipeClusters?: readonly string[];
  /** Block devices and image files; empty means every disk of the machine. */
  readonly paths: readonly string[];
  /** An image file's logical sector size (`--sector-size`): 4096 lays out a 4Kn disk. */
  readonly fileSectorSize?: number;
  /**
   * Where the installer's status document goes (the state partition gets a copy); the
   * install holds it while it runs, so no other install writes the same one.
   */
  readonly statusFile: string;
  /**
   * The layout a person confirmed (the menu, `install --plan`): the install writes it only
   * while the disks are still what it was planned for (plan/confirmed.ts).
   */
  readonly confirmed?: Layout;
  readonly onEvent?: (event: InstallEvent) => void;
  /** Each status document as it is made, whether or not it could be written. */
  readonly onStatus?: (status: InstallerStatus) => void;
  /**
   * Stops the install when aborted, its reason the signal's name (Ctrl-C and its kin): at
   * once while it only reads (the release's hashes, the disks), else at the next point the
   * same install, run again, finishes from: before a step, or between the chunks of the
   * slot write. It then throws, its status at phase Interrupted.
   */
  readonly interrupt?: AbortSignal;
  /**
   * Where this caller puts the recovery key of an encrypted install ([encryption]): the
   * unattended report, a screen. None: an encrypted install is refused before it writes.
   */
  readonly recoveryTo?: readonly ("report" | "console")[];
}

export type InstallOutcome =
  | {
      readonly result: "installed";
      readonly layout: Layout;
      readonly status: InstallerStatus;
      /** [encryption]: the one recovery key, for the caller to show or send once. */
      readonly recoveryKey?: string;
    }
  | { readonly result: "already-installed"; readonly disk: Disk; readonly status: InstallerStatus };

/**
 * Installs, or throws a LikenError whose reason is an InstallFailureReason; the status file
 * says which. Stopped through `interrupt`, it throws a LikenError that says where it stopped.
 */
export async function install(request: InstallRequest): Promise<InstallOutcome> {
  const run = new InstallRun(request, await readBootId());
  try {
    return await run.execute();
  } catch (error) {
    // Whatever broke after the signal (a tool the terminal's Ctrl-C killed too) is the stop.
    if (request.interrupt?.aborted) {
      const stopped = run.stopped();
      // The stop is the error to report; a status that cannot be written must not hide it.
      await run.writeStatus("Interrupted", "", stopped.message).catch(() => undefined);
      throw stopped;
    }
    await run.fail(error);
    throw error;
  } finally {
    await run.cleanup();
  }
}

// The steps that write nothing to a disk: a signal stops them at once.
const READ_ONLY_STEPS: ReadonlySet<InstallStep> = new Set(["preflight", "plan"]);

class InstallRun {
  private step: InstallStep = "preflight";
  /** The words of the step running (steps.ts). */
  private stepWhat = "";
  /** Where a signal stopped the install: before a step began, or while it ran. */
  private stoppedAt: { readonly when: "before" | "while"; readonly what: string } | undefined;
  /** Whether a step that writes a disk has begun: the disks may hold a partial install. */
  private wroteDisks = false;
  private layout: Layout | undefined;
  private readonly handles = new Map<string, DiskHandle>();
  private workDir: string | undefined;
  /** The release's boot-path verdict on each disk (preflight): unsupported disks are left out. */
  private missingDrivers: MissingDrivers | undefined;
  /** This install's hold on its status file, or why it has none. */
  private status: StatusHold | undefined;
  /** The status writes in order: each waits for the one before (one temporary file). */
  private statusWrites: Promise<void> = Promise.resolve();
  /** [encryption]: this run's keys, made at the first encrypted volume. */
  private keys: VolumeKeys | undefined;

  constructor(
    private readonly request: InstallRequest,
    private readonly bootId: string,
  ) {}

  async execute(): Promise<InstallOutcome> {
    this.status = await holdStatusFile(this.request.statusFile);
    const wanted = this.request.manifest.release.version;
    const release = await this.runStep(stepOf("preflight", wanted), () => this.preflight());
    const plan = await this.runStep(stepOf("plan", release.version), async () =>
      this.plan(release),
    );
    if (plan.kind === "done") {
      const status = await this.writeStatus(
        "Installed",
        "",
        `already installed on ${plan.disk.path}; nothing written`,
      );
      return { result: "already-installed", disk: plan.disk, status };
    }
    this.layout = plan.layout;
    // The refusals planning finds come first; a status that cannot be written stops the
    // install here, before the first write to a disk.
    if (this.status && "problem" in this.status) throw this.status.problem;
    for (const step of plan.steps) await this.runStep(step, () => this.run(step, plan, release));
    const status = await this.writeStatus(
      "Installed",
      "",
      `installed on ${plan.layout.disks.map((d) => d.path).join(", ")}`,
    );
    const recoveryKey = this.keys?.recoveryKey;
    return {
      result: "installed",
      layout: plan.layout,
      status,
      ...(recoveryKey ? { recoveryKey } : {}),
    };
  }

  // What each step of the plan does; the order and the words are the plan's (steps.ts).
  private async run(step: PlannedStep, plan: PlanToRun, release: ReleaseInfo): Promise<void> {
    // One system disk, or the two members of a mirror, each written whole.
    const systems = plan.layout.disks.filter((d) => d.use === "system");
    const each = async (write: (system: PlannedDisk) => Promise<void>) => {
      for (const system of systems) await write(system);
    };
    switch (step.step) {
      case "lock":
        return this.lockTargets(plan.layout);
      case "erase":
        return this.erase(plannedDisk(plan.layout, step.disk));
      case "claim":
        return this.writeClaims(plan.claim, false);
      case "partition":
        return this.partition();
      case "esp":
        return each((system) => this.writeEsp(system, release));
      case "slot":
        return each((system) => this.writeSlot(system, release));
      case "journal":
        return each((system) => this.writeJournal(system));
      case "storage":
        return this.clearStorage();
      case "state":
        // The state says Installed: only the complete flag follows it.
        return each((system) => this.writeState(system, plan.claim, systems));
      case "complete":
        return this.writeClaims(plan.claim, true);
      case "preflight":
      case "plan":
        throw new Error(`${step.step} is not a step of a plan`);
    }
  }

  async fail(error: unknown): Promise<void> {
    const reason: InstallFailureReason =
      error instanceof LikenError && error.reason
        ? (error.reason as InstallFailureReason)
        : "WriteFailed";
    const message = error instanceof Error ? error.message : String(error);
    // The install's own error is thrown after this: a failed status write must not replace it.
    await this.writeStatus("Failed", reason, message).catch(() => undefined);
  }

  /** The error that says where a signal stopped the install, and what to do. */
  stopped(): LikenError {
    const signal = String(this.request.interrupt?.reason ?? "a signal");
    const at = this.stoppedAt ?? { when: "while", what: this.stepWhat || "starting" };
    const paths = this.plannedDisks().map((d) => d.path);
    const left = !this.wroteDisks
      ? "nothing was written"
      : `${paths.join(", ")} ${paths.length === 1 ? "holds" : "hold"} a partial install`;
    return new LikenError({
      kind: "failed",
      what: `stopped by ${signal} ${at.when} ${at.what}; ${left}`,
      hint: "run the same install again to finish it",
    });
  }

  // Throws where the install may stop, once a signal came; notes where that was.
  private stopIfInterrupted(when: "before" | "while", what: string): void {
    if (!this.request.interrupt?.aborted) return;
    this.stoppedAt ??= { when, what };
    throw new Error(`stopped by ${String(this.request.interrupt.reason)}`);
  }

  // `work` that only reads, given up at once when a signal comes.
  private untilInterrupted<T>(work: Promise<T>, what: string): Promise<T> {
    const signal = this.request.interrupt;
    if (!signal) return work;
    return new Promise<T>((resolve, reject) => {
      const stop = () => {
        this.stoppedAt ??= { when: "while", what };
        reject(new Error(`stopped by ${String(signal.reason)}`));
      };
      signal.addEventListener("abort", stop, { once: true });
      work.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
    });
  }

  async cleanup(): Promise<void> {
    // A lock that will not release goes with this process; cleanup goes on with the rest.
    for (const h of this.handles.values()) await h.release().catch(() => undefined);
    if (this.workDir) await rm(this.workDir, { recursive: true, force: true });
    await this.statusWrites;
    if (this.status && "release" in this.status) await this.status.release();
  }

  // Each step: say it, record it in the status document, run it, flush every disk.
  private async runStep<T>(step: PlannedStep, body: () => Promise<T>): Promise<T> {
    const { what } = step;
    this.stopIfInterrupted("before", what);
    this.step = step.step;
    this.stepWhat = what;
    if (!READ_ONLY_STEPS.has(step.step) && step.step !== "lock") this.wroteDisks = true;
    this.request.onEvent?.({ type: "step", step: step.step, what });
    await this.writeStatus("Installing", "", what);
    if (step$.hasSubscribers) step$.publish({ step: step.step } satisfies InstallStepMessage);
    const work = READ_ONLY_STEPS.has(step.step) ? this.untilInterrupted(body(), what) : body();
    const result = await work.catch((error: unknown) => {
      this.stopIfInterrupted("while", what);
      if (error instanceof LikenError) throw error;
      const { reason, hint } = stepFailureOf(error, step.failure);
      throw new LikenError({
        kind: "failed",
        what: `${what}: ${error instanceof Error ? error.message : String(error)}`,
        hint,
        reason,
        cause: error,
      });
    });
    for (const h of this.handles.values()) await h.file.sync();
    return result;
  }

  private async preflight(): Promise<ReleaseInfo> {
    const release = await requireRelease(this.request.releaseDir);
    const wanted = this.request.manifest.release.version;
    if (release.version !== wanted) {
      throw new LikenError({
        kind: "refused",
        what: `release ${this.request.releaseDir} is ${release.version}, but the manifest installs ${wanted}`,
        hint: "give the release the manifest names",
        reason: "ReleaseInvalid",
      });
    }
    await verifyRelease(release);
    // A disk whose driver chain needs a module the release cannot load at boot would not
    // boot: it is unsupported, and an install onto it alone refuses with MissingDriver.
    this.missingDrivers = await missingDriversOf(release);
    return release;
  }

  // The disks as they are now, and the plan for them (plan/plan-install.ts decides).
  private async plan(release: ReleaseInfo): Promise<PlanToRun | { kind: "done"; disk: Disk }> {
    const { manifest, machine, wipe, paths, confirmed } = this.request;
    const disks = await inventoryDisks({
      paths,
      missingDrivers: this.missingDrivers,
      ...this.fileSectors(),
    });
    const plan = planInstall({
      disks,
      manifest,
      machine,
      release,
      wipe,
      wipeClusters: this.request.wipeClusters ?? [],
      paths,
      writing: await installsWriting(disks),
      tpm: readTpmPresence(),
      recoveryTo: this.request.recoveryTo ?? [],
      ...(confirmed ? { confirmed } : {}),
      newInstallId: confirmed?.installId ?? randomUUID(),
      now: Math.floor(Date.now() / 1000),
    });
    if (plan.kind === "refused") {
      const { reason, message, hint } = plan.failure;
      throw new LikenError({
        kind: reason === "UnknownMachine" ? "usage" : "refused",
        what: message,
        hint,
        reason,
      });
    }
    return plan;
  }

  private fileSectors(): { fileSectorSize?: number } {
    const size = this.request.fileSectorSize;
    return size === undefined ? {} : { fileSectorSize: size };
  }

  private async lockTargets(layout: Layout): Promise<void> {
    for (const d of layout.disks) this.handles.set(d.path, await lockDisk(d.path, d.kind));
    // Classified again under the lock: what the plan saw must still be true.
    const again = await inventoryDisks({
      paths: layout.disks.map((d) => d.path),
      held: new Set(this.handles.keys()),
      missingDrivers: this.missingDrivers,
      ...this.fileSectors(),
    });
    for (const planned of layout.disks) {
      const now = again.find((d) => d.path === planned.path);
      const drift = plannedDiskDrift(planned, now, layout.installId);
      if (drift) {
        throw new LikenError({
          kind: "refused",
          what: `a disk changed while the install started: ${drift}`,
          hint: "check what else uses the disk, then run the install again",
          reason: "DiskChanged",
        });
      }
    }
  }

  private async erase(planned: PlannedDisk): Promise<void> {
    const handle = this.handle(planned.path);
    const head = Buffer.alloc(MIB);
    await handle.file.read(head, 0, head.length, 0);
    await eraseDisk(handle, planned.size, planned.kind, parseGpt(head, [planned.sectorSize]));
    // The erase keeps the claim (the claim step writes the new one over it): what must be
    // gone is every table, every partition the kernel lists, and every signature.
    const [after] = await inventoryDisks({
      paths: [planned.path],
      held: new Set([planned.path]),
      fileSectorSize: planned.sectorSize,
    });
    const left = (after?.reasons ?? []).filter(
      (r) => r.startsWith("partition") || r.startsWith("signature:"),
    );
    if (after?.verdict !== "liken" || left.length > 0) {
      throw new LikenError({
        kind: "failed",
        what: `${planned.path} still holds data after erasing: it reads ${after?.verdict} (${after?.reasons.join(", ")})`,
        hint: "check the disk's health (dmesg), then run wipe and reinstall again",
        reason: "VerifyFailed",
      });
    }
  }

  // The generation is 1 while partial, 2 when complete. The system disk is marked complete
  // last: while it is partial, a second run finishes every disk of the install.
  private async writeClaims(claim: InstallClaim, complete: boolean): Promise<void> {
    const disks = this.plannedDisks();
    for (const planned of complete ? [...disks].reverse() : disks) {
      await writeClaimCopies(this.handle(planned.path).file, planned.size, {
        ...claim,
        use: planned.use,
        complete,
        generation: complete ? 2 : 1,
        ...(planned.mirror ? { mirror: planned.mirror } : {}),
      });
      if (claim$.hasSubscribers)
        claim$.publish({ disk: planned.path, complete } satisfies ClaimMessage);
    }
  }

  private async partition(): Promise<void> {
    for (const planned of this.plannedDisks()) {
      const entries = planned.partitions.map((p) => ({
        start: p.start,
        size: p.size,
        typeGuid: p.typeGuid,
        uuid: p.partUuid,
        name: p.label,
      }));
      await writeTable(this.handle(planned.path).file, planned, entries);
    }
  }

  private async writeEsp(system: PlannedDisk, release: ReleaseInfo): Promise<void> {
    const esp = part(system, "esp");
    const work = await this.work();
    const image = join(work, "esp.img");
    await buildEsp({
      image,
      size: esp.size,
      workDir: work,
      release,
      slot: "a",
      rootPartUuid: part(system, "slot-a").partUuid,
      partUuid: esp.partUuid,
      sectorSize: system.sectorSize,
    });
    await writeImage(this.handle(system.path).file, image, esp.start);
    await rm(image);
  }

  private async writeSlot(system: PlannedDisk, release: ReleaseInfo): Promise<void> {
    const slot = part(system, "slot-a");
    const { file } = this.handle(system.path);
    await writeImage(file, join(release.dir, "rootfs.img"), slot.start, {
      onProgress: (done, total) => {
        // The slot is the long write: a signal stops it between two chunks.
        this.stopIfInterrupted("while", this.stepWhat);
        this.request.onEvent?.({ type: "progress", step: "slot", done, total });
      },
    });
    await file.sync();
    const expected = release.files["rootfs.img"];
    const actual = await hashRegion(file, slot.start, release.rootfsSize);
    if (actual !== expected?.sha256) {
      throw new LikenError({
        kind: "failed",
        what: `slot A of ${system.path} reads back with sha256 ${actual}, not ${expected?.sha256}`,
        hint: "check the disk's health (dmesg), then run the install again",
        reason: "VerifyFailed",
      });
    }
  }

  private async writeJournal(system: PlannedDisk): Promise<void> {
    const journal = part(system, "journal");
    const { file } = this.handle(system.path);
    // A clean first MiB: no record of an earlier install sits right behind the header.
    await zeroRegion(file, journal.start, Math.min(MIB, journal.size));
    const header = journalHeader(this.layout!.installId, journal.size);
    await file.write(header, 0, header.length, journal.start);
  }

  private async writeState(
    system: PlannedDisk,
    claim: InstallClaim,
    systems: readonly PlannedDisk[],
  ): Promise<void> {
    const state = part(system, "state");
    const work = await this.work();
    const image = join(work, "state.img");
    const { manifest } = this.request;
    const machine = manifest.machines.find((m) => m.name === this.request.machine)!;
    const status = this.statusDocument(
      "Installed",
      "",
      `installed on ${this.layout!.disks.map((d) => d.path).join(", ")}`,
    );
    await buildState({
      image,
      // Encrypted, the filesystem is what the LUKS2 volume holds after its header.
      size: this.layout?.encryption ? state.size - LUKS_DATA_OFFSET : state.size,
      workDir: work,
      manifest,
      machine,
      installId: claim.installId,
      version: claim.release,
      installedAt: claim.createdAt,
      partUuid: state.partUuid,
      status,
      sectorSize: system.sectorSize,
      ...(systems.length === 2 ? { mirror: { members: systems.map(mirrorMember) } } : {}),
    });
    if (this.layout?.encryption) {
      await encryptVolume(
        { ...this.volumeOf(system, state), content: image },
        await this.volumeKeys(),
      );
    } else {
      await writeImage(this.handle(system.path).file, image, state.start);
    }
    await rm(image);
  }

  private volumeOf(disk: PlannedDisk, p: PlannedPartition): Volume {
    return {
      disk: disk.path,
      offset: p.start,
      size: p.size,
      sectorSize: disk.sectorSize,
      label: p.label,
      uuid: p.partUuid.toLowerCase(),
    };
  }

  private async volumeKeys(): Promise<VolumeKeys> {
    this.keys ??= await makeVolumeKeys();
    return this.keys;
  }

  // The installed machine formats its storage roles; old bytes at a role's edges must not
  // look like a filesystem to it.
  private async clearStorage(): Promise<void> {
    for (const planned of this.plannedDisks()) {
      const { file } = this.handle(planned.path);
      for (const p of planned.partitions.filter((x) => x.content === "storage")) {
        await zeroRegion(file, p.start, Math.min(MIB, p.size));
        await zeroRegion(file, p.start + p.size - Math.min(MIB, p.size), Math.min(MIB, p.size));
        // Encrypted, the role is an empty LUKS2 volume: the machine formats what it opens.
        if (this.layout?.encryption) {
          await file.sync();
          await encryptVolume(this.volumeOf(planned, p), await this.volumeKeys());
        }
      }
    }
  }

  private statusDocument(
    phase: InstallerStatus["phase"],
    reason: InstallerStatus["reason"],
    message: string,
  ): InstallerStatus {
    const { manifest, machine } = this.request;
    return installerStatus(
      {
        phase,
        reason,
        message,
        cluster: manifest.cluster,
        machine,
        version: manifest.release.version,
        installId: this.layout?.installId ?? "",
        step: this.step,
        disks: this.layout?.disks.map((d) => d.path) ?? [],
      },
      new Date(),
      this.bootId,
    );
  }

  // Written only while this install holds the file; made and told about either way.
  async writeStatus(
    phase: InstallerStatus["phase"],
    reason: InstallerStatus["reason"],
    message: string,
  ): Promise<InstallerStatus> {
    const status = this.statusDocument(phase, reason, message);
    this.request.onStatus?.(status);
    if (this.status && "release" in this.status) {
      const text = installerStatusText(status);
      const write = this.statusWrites.then(() => writeFileAtomic(this.request.statusFile, text));
      // The next write waits for this one, not for its success; its error is awaited below.
      this.statusWrites = write.catch(() => undefined);
      await write;
    }
    return status;
  }

  private plannedDisks(): readonly PlannedDisk[] {
    return this.layout?.disks ?? [];
  }

  private handle(path: string): DiskHandle {
    const h = this.handles.get(path);
    if (!h) throw new Error(`${path} is not locked`);
    return h;
  }

  private async work(): Promise<string> {
    this.workDir ??= await mkdtemp(join(tmpdir(), "liken-install-"));
    return this.workDir;
  }
}

function plannedDisk(layout: Layout, path: string | undefined): PlannedDisk {
  const disk = layout.disks.find((d) => d.path === path);
  if (!disk) throw new Error(`${path} is not a disk of the plan`);
  return disk;
}

// A member of the mirror as identity.json names it, for the boot agent to find the other.
function mirrorMember(disk: PlannedDisk): IdentityMirrorMember {
  return {
    member: disk.mirror?.member ?? 1,
    ...(disk.serial ? { serial: disk.serial } : {}),
    ...(disk.wwn ? { wwn: disk.wwn } : {}),
    path: disk.path,
    partUuids: Object.fromEntries(
      disk.partitions.filter((p) => p.content !== "storage").map((p) => [p.label, p.partUuid]),
    ),
  };
}

function part(disk: PlannedDisk, content: PlannedPartition["content"]): PlannedPartition {
  const p = disk.partitions.find((x) => x.content === content);
  if (!p) throw new Error(`${disk.path} has no ${content} partition in the plan`);
  return p;
}
