// The boot agent of an installed machine (docs/design.md section 5), started by the init of
// the release's root once the initramfs switched to it (docs/rollback.md, What a
// release's root does). At every boot, beside the steps: the declared modules, the
// drivers, the NICs' names and the declared ports' wait (network.ts). (1) crash records from
// pstore into the crash journal, (2) a trial boot's health checks, then bless or reject,
// (3) a rejected trial's bookkeeping, (4) staging the spec's release into the other slot,
// (5) the status document. Decisions are boot-plan.ts's; this file reads and writes.
//
// Exit codes for the root's init: 0 the boot is complete; 3 hold the console (the reason is
// on it). Any end but 0 during a trial makes the init reset the machine, so a trial never
// holds or hangs.
import { realpathSync } from "node:fs";
import { mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { firstLine, LikenError } from "../common/errors.ts";
import { partitionLabel } from "../common/partition-labels.ts";
import { rfc3339 } from "../common/time.ts";
import { BOOT_ROOT } from "../formats/boot-interface.ts";
import type { BootIdentity } from "../formats/identity.ts";
import { readSecureBoot } from "../hardware/secure-boot.ts";
import { warmUpPrograms } from "../tools/exec.ts";
import { mount, syncAll, umount } from "../tools/mount.ts";
import {
  blessActions,
  exhaustedTrials,
  exhaustTrial,
  identifyBoot,
  otherSlot,
  rejectionFor,
} from "./boot-plan.ts";
import { collectCrashes, mountPstore } from "./collect-crashes.ts";
import { bootMarker } from "./crash-parse.ts";
import { modulesOutcome } from "./declared-modules.ts";
import { VolumesLocked } from "./encrypted-volumes.ts";
import { applyEntryActions, listEntries } from "./esp.ts";
import { checkHealth } from "./health.ts";
import {
  bootDisk,
  bootId,
  kernelCommandLine,
  kmsg,
  loaderVariable,
  type Partition,
  partitions,
  rebootCleanly,
  say,
  step,
  takeInitramfsFailure,
  type VerifiedRoot,
  verifiedRoot,
  Watchdog,
} from "./machine.ts";
import { MirrorPeer } from "./mirror-peer.ts";
import { keepInStep } from "./mirror-sync.ts";
import {
  bringUpDeclaredNetwork,
  loadDeclaredModules,
  loadDrivers,
  nameNics,
  waitForPorts,
} from "./network.ts";
import { portsCondition } from "./ports.ts";
import { type Staged, staging, stagingDisks } from "./staging-step.ts";
import {
  ESP,
  readIdentity,
  readPreviousStatus,
  readRecord,
  STATE,
  saveRecord,
  TRIAL_MARK,
  writeStatus,
} from "./state-files.ts";
import { type BootNetwork, machineStatus, type StatusInput } from "./status.ts";
import {
  type BootRecord,
  type CrashRecord,
  EMPTY_RECORD,
  type Entry,
  type InitramfsFailure,
  type Slot,
  type TrialRecord,
} from "./types.ts";
import { roleVolumes, Volumes } from "./volumes.ts";
import { runWatch } from "./watch/run-watch.ts";

const RELEASE_FILE = "/etc/liken/release.json";
const HOLD = 3;
const HEALTH_DEADLINE_MS = 120_000;
const FAILED_TRIAL_HOLD_MS = 10_000;
const REINSTALL = "boot the stick and select wipe and reinstall";
/**
 * The reason of a LikenError that holds the boot: the agent prints `liken: what (hint)` and
 * exits HOLD. During a trial the root's init resets the machine instead (the initramfs
 * marked the trial before the agent started), so a trial never holds.
 */
const BOOT_HELD = "BootHeld";

function now(): string {
  return rfc3339(new Date());
}

interface Boot {
  readonly id: string;
  readonly version: string;
  readonly slot: Slot;
  readonly trial: boolean;
  readonly entry: Entry | null;
  readonly state: Partition;
  /** The booted disk's ESP (mounted at ESP). */
  readonly esp: Partition;
  /** The state partition's mount, started with the ESP's: null once mounted, or why not. */
  readonly stateMount: Promise<Error | null>;
  /** The state partition and storage roles as opened ([encryption]: LUKS2 volumes). */
  readonly volumes: Volumes;
  readonly journal: Partition;
  readonly slots: Readonly<Record<Slot, Partition>>;
  readonly partUuids: Readonly<Record<Slot, string>>;
  /** Every GPT partition of the disks present when the boot began. */
  readonly partitions: readonly Partition[];
  /** The kernel's name of the disk this boot came from. */
  readonly bootDisk: string;
  /** The verity mapping / runs from; null when / is not one. */
  readonly root: VerifiedRoot | null;
}

async function main(): Promise<number> {
  // pstore, the ESP and the state partition mount side by side (each mount is a process).
  const pstoreMounted = mountPstore();
  const boot = await identify(await releaseVersion());
  const watchdog = boot.trial ? await beginTrial(boot) : undefined;
  const initramfsFailure = await takeInitramfsFailure();
  const stateMounted = await stateMountedOrHold(boot);
  const identity = await readIdentity();
  await boot.volumes.openRoles(roleVolumes(identity.storage, boot.partitions));
  const mirror = await MirrorPeer.open(identity, boot.esp, boot.partitions);
  // A mirror's two disks made equal before the trial, and after each set of writes below.
  const inStep = () => keepInStep(mirror, { esp: ESP, state: STATE, slots: boot.slots }, boot.slot);
  if ((await inStep()) === "reboot") return rebootIntoNewerMember(watchdog);
  // Declared modules first, before any driver loads by device; the port wait runs beside
  // the steps below and is awaited before a status is written.
  const drivers = loadNetworkDrivers(identity);
  const network = bringUpPorts(identity, drivers).catch(networkFailed);

  // 1. Crash records.
  const crashes = await collectCrashes(boot.journal, identity.installId, pstoreMounted);
  const base = await statusFacts(boot, crashes.newest, watchdog);
  // SystemDiskMirrored as it stands when each document is written: a write of the peer may fail on the way.
  const networked = async (): Promise<BootFacts> => ({
    ...base,
    network: await network,
    ...(mirror && { mirror: mirror.condition() }),
  });
  let record = (await readRecord()) ?? EMPTY_RECORD;
  if (boot.trial) {
    // 2. The trial's health checks: bless, or reject and reset.
    const assessed = await assessTrial(boot, record, stateMounted);
    if (!assessed.healthy)
      return failTrial(boot, assessed, await networked(), stateMounted, inStep);
    record = assessed.record;
  } else {
    // 3. A rejected trial's bookkeeping.
    record = await recordRejection(boot, record, crashes.all, initramfsFailure);
  }

  // 4. Staging, then a reboot into the staged release when it need not wait.
  const staged = await stageSpecRelease(boot, record, identity, drivers);
  await inStep();
  const statusInput: StatusInput = {
    ...(await networked()),
    now: now(),
    phase: "Running",
    rejection: record.rejection,
    ...staged.status,
  };
  if (staged.reboot && (staged.rebootNow || identity.rebootPolicy === "Automatic"))
    return rebootIntoStaged(statusInput, staged.reboot, watchdog, inStep);

  // 5. The status document.
  await writeRunningStatus(statusInput, staged.reboot);
  await inStep();
  return completeBoot(boot, watchdog, mirror);
}

async function releaseVersion(): Promise<string> {
  const release = JSON.parse(await readFile(RELEASE_FILE, "utf8")) as { version: string };
  return release.version;
}

// A state partition that does not mount holds a proven boot; a trial goes on, and its checks
// fail it.
async function stateMountedOrHold(boot: Boot): Promise<boolean> {
  let stateError = await boot.stateMount;
  // The TPM would not open it: a person's recovery key does, on a proven boot only.
  if (stateError instanceof VolumesLocked && !boot.trial)
    stateError = await boot.volumes
      .recover(boot.state, stateError)
      .then((device) => mount(device, STATE, "ext4"))
      .then(
        () => null,
        (error: Error) => error,
      );
  if (stateError)
    step(`the state partition ${boot.state.device} does not mount: ${firstLine(stateError)}`);
  const stateMounted = stateError === null;
  if (!stateMounted && !boot.trial)
    throw new LikenError({
      kind: "refused",
      what: `the state partition ${boot.state.device} does not mount`,
      hint: `read the disk with liken-stick inspect, then ${REINSTALL}`,
      reason: BOOT_HELD,
    });
  return stateMounted;
}

// The modules and ports could not be brought up: the boot goes on, and the status says why.
function networkFailed(error: Error): BootNetwork {
  const failed = {
    status: "False" as const,
    reason: "BootAgentError",
    message: `the boot agent could not bring up modules and ports: ${firstLine(error)}`,
  };
  step(failed.message);
  return {
    modules: [],
    modulesApplied: failed,
    portsReady: failed,
    applied: null,
    networkReady: failed,
  };
}

/** What every status document of this boot says of the boot, whatever its outcome. */
type BootFacts = Pick<
  StatusInput,
  | "now"
  | "bootId"
  | "slot"
  | "version"
  | "trial"
  | "previous"
  | "lastCrash"
  | "root"
  | "watchdog"
  | "secureBoot"
  | "network"
  | "mirror"
  | "encryption"
  | "encrypted"
>;

async function statusFacts(
  boot: Boot,
  lastCrash: CrashRecord | null,
  watchdog: Watchdog | undefined,
): Promise<Omit<BootFacts, "network" | "mirror">> {
  return {
    now: now(),
    bootId: boot.id,
    slot: boot.slot,
    version: boot.version,
    trial: boot.trial,
    previous: await readPreviousStatus(),
    lastCrash,
    root: rootOf(boot),
    watchdog: watchdog?.identity ?? null,
    secureBoot: (await readSecureBoot())?.state ?? null,
    ...boot.volumes.status(),
  };
}

// Step 2's unhealthy end: the status says Failed, the reason stays on the console, and the
// machine resets into the other slot.
async function failTrial(
  boot: Boot,
  assessed: Extract<Assessed, { healthy: false }>,
  facts: BootFacts,
  stateMounted: boolean,
  inStep: () => Promise<unknown>,
): Promise<number> {
  await writeStatus(
    machineStatus({
      ...facts,
      phase: "Failed",
      notReady: { reason: "HealthCheckFailed", message: assessed.message },
      rejection: assessed.record.rejection,
    }),
    stateMounted,
  );
  await inStep();
  step(`trial of ${boot.version} failed: ${assessed.message}`);
  step(
    `the machine returns to slot ${otherSlot(boot.slot)}: resetting in ${FAILED_TRIAL_HOLD_MS / 1000} s`,
  );
  await sleep(FAILED_TRIAL_HOLD_MS);
  await rebootCleanly();
  return HOLD;
}

// Step 4. The NICs are named and every device has its driver before staging judges the new
// release's; the disks those drivers brought (a storage role behind a RAID controller, a
// disk the initramfs left to them) are read then.
async function stageSpecRelease(
  boot: Boot,
  record: BootRecord,
  identity: BootIdentity,
  drivers: ReturnType<typeof loadNetworkDrivers>,
): Promise<Staged> {
  const driven = await drivers.then(
    () => true,
    // Why the drivers failed is the status's (networkFailed); staging judges no port then.
    () => false,
  );
  const all = await partitions(boot.partitions);
  return staging({
    slot: boot.slot,
    version: boot.version,
    record,
    esp: ESP,
    partUuids: boot.partUuids,
    slots: boot.slots,
    ...stagingDisks(all, boot.bootDisk),
    ports: driven ? identity.ports : [],
  });
}

// A staged release that need not wait for a person: its trial boots now.
async function rebootIntoStaged(
  statusInput: StatusInput,
  reboot: NonNullable<Staged["reboot"]>,
  watchdog: Watchdog | undefined,
  inStep: () => Promise<unknown>,
): Promise<number> {
  await writeStatus(machineStatus({ ...statusInput, phase: "Rebooting" }), true);
  await inStep();
  watchdog?.disarm();
  step(`rebooting into ${reboot.version} (slot ${reboot.slot}) for its one trial boot`);
  await rebootCleanly();
  return HOLD;
}

// The other disk of the mirror ran while this one was gone, and this one now holds what it
// did: the machine runs that (docs/design.md section 5).
async function rebootIntoNewerMember(watchdog: Watchdog | undefined): Promise<number> {
  watchdog?.disarm();
  await rebootCleanly();
  return HOLD;
}

// Step 5: the machine runs; a staged release waits for the next reboot.
async function writeRunningStatus(
  statusInput: StatusInput,
  reboot: Staged["reboot"],
): Promise<void> {
  if (reboot)
    step(
      `${reboot.version} is staged in slot ${reboot.slot} and boots once as a trial at the next reboot (reboot_policy Manual)`,
    );
  await writeStatus(
    machineStatus(reboot ? { ...statusInput, rebootPending: reboot } : statusInput),
    true,
  );
}

// The boot is complete: the watchdog stops, the trial's mark goes, the partitions are
// written out, and the console says the release is up.
async function completeBoot(
  boot: Boot,
  watchdog: Watchdog | undefined,
  mirror: MirrorPeer | null,
): Promise<number> {
  watchdog?.disarm();
  // No mark is no trial to end: nothing to remove.
  await unlink(TRIAL_MARK).catch(() => undefined);
  // The peer's partitions are written out by their unmount; one that will not unmount is by sync below.
  await mirror?.close().catch(() => syncAll());
  // One umount for both (a program is a tenth of a second under emulation); an unmount
  // writes its filesystem out, so sync(1) runs only when one stayed mounted.
  await umount(STATE, ESP).catch(() => syncAll());
  say(`liken ${boot.version} slot ${boot.slot} up`);
  return 0;
}

// The declared modules, the drivers by device, the NICs' names, then the declared ports'
// wait (agent/network.ts). Nothing here stops the boot: what went wrong is in the status.
async function loadNetworkDrivers(identity: BootIdentity) {
  const facts = await loadDeclaredModules(identity.modules);
  await loadDrivers();
  return { facts, present: await nameNics() };
}

async function bringUpPorts(
  identity: BootIdentity,
  drivers: ReturnType<typeof loadNetworkDrivers>,
): Promise<BootNetwork> {
  const { facts, present } = await drivers;
  const outcomes = await waitForPorts(identity.ports, present);
  const { modules, condition } = modulesOutcome(facts);
  // The declared network goes on the ports once they are up (a bond's ports are in `ports`).
  const network = await bringUpDeclaredNetwork(identity);
  return {
    modules,
    modulesApplied: condition,
    portsReady: portsCondition(outcomes, present),
    ...network,
  };
}

// Which disk, slot and entry this boot came from (the ESP stays mounted for the steps after).
async function identify(version: string): Promise<Boot> {
  const cmdline = await kernelCommandLine();
  // A signed release's command line names no slot or root: the initramfs wrote what it found.
  const [recordSlot, recordRoot] = (await readFile(BOOT_ROOT, "utf8").catch(() => ""))
    .trim()
    .split(" ");
  const slotWord = cmdline.get("liken.slot") ?? recordSlot;
  const root = (cmdline.get("root") ?? "").replace(/^PARTUUID=/i, "") || (recordRoot ?? "");
  const all = await partitions();
  const disk = bootDisk(all, root);
  if (!disk)
    throw new LikenError({
      kind: "refused",
      what: `no disk holds the partition root=PARTUUID=${root} names`,
      hint: "the system disk or its driver is missing: run the hardware report from the stick",
      reason: BOOT_HELD,
    });
  const { esp, state, journal } = disk;
  const { a, b } = disk.slots;
  if (!esp || !state || !journal || !a || !b)
    throw new LikenError({
      kind: "refused",
      what: `the disk of partition ${root} lacks a liken partition: esp, a, b, journal or state`,
      hint: REINSTALL,
      reason: BOOT_HELD,
    });
  // The state partition mounts beside the ESP: each mount is a program, a tenth of a second
  // under emulation. main() says what a failed one means, after this boot's first line.
  const volumes = new Volumes();
  const stateMount = mkdir(STATE, { recursive: true })
    .then(() => volumes.openState(state))
    .then((device) => mount(device, STATE, "ext4"))
    .then(
      () => null,
      (error: Error) => error,
    );
  await mkdir(ESP, { recursive: true });
  await mount(esp.device, ESP, "vfat");
  const identity = identifyBoot({
    version,
    cmdlineSlot: slotWord === "a" || slotWord === "b" ? slotWord : null,
    loaderEntrySelected: await loaderVariable("LoaderEntrySelected"),
    loaderBootCountPath: await loaderVariable("LoaderBootCountPath"),
    entries: await listEntries(ESP),
  });
  if (identity.kind === "unknown")
    throw new LikenError({
      kind: "refused",
      what: identity.reason,
      hint: `an entry on the ESP was changed by hand: ${REINSTALL}`,
      reason: BOOT_HELD,
    });
  const id = await bootId();
  const trial = identity.kind === "trial";
  kmsg(bootMarker(id, version, identity.slot, trial));
  step(`booting ${version} from slot ${identity.slot}${trial ? " as its one trial" : ""}`);
  return {
    id,
    version,
    slot: identity.slot,
    trial,
    entry: identity.entry,
    state,
    esp,
    stateMount,
    volumes,
    journal,
    slots: { a, b },
    partUuids: { a: a.partUuid, b: b.partUuid },
    partitions: all,
    bootDisk: esp.disk,
    root: await verifiedRoot(),
  };
}

// A trial resets the machine whatever stops it: /init's mark, the watchdog, and an entry
// with no tries left before anything else can fail.
async function beginTrial(boot: Boot): Promise<Watchdog | undefined> {
  await writeFile(TRIAL_MARK, `${boot.version} ${boot.slot}\n`);
  const watchdog = await Watchdog.arm();
  step(
    watchdog
      ? `watchdog ${watchdog.identity} pinged by the boot agent for the trial`
      : "no watchdog: a hang in the trial is not reset",
  );
  // systemd-boot counts the entry down before it boots it; if it did not, count it here.
  if (boot.entry) await applyEntryActions(ESP, exhaustTrial(boot.entry), boot.partUuids);
  return watchdog;
}

type Assessed =
  | { readonly healthy: true; readonly record: BootRecord }
  | { readonly healthy: false; readonly record: BootRecord; readonly message: string };

// Step 2: the trial is recorded as started (so a crash or a hang is told from a failed
// check at the next boot), checked, then blessed or recorded as failed.
async function assessTrial(
  boot: Boot,
  before: BootRecord,
  stateMounted: boolean,
): Promise<Assessed> {
  const started: TrialRecord = {
    version: boot.version,
    slot: boot.slot,
    bootId: boot.id,
    startedAt: now(),
    outcome: "Started",
    message: "",
  };
  const stateWritable = stateMounted && (await saveRecord({ ...before, trial: started }));
  step("trial: checking the verified root, the state partition and the release's health checks");
  const health = await checkHealth({
    version: boot.version,
    slot: boot.slot,
    esp: ESP,
    stateWritable,
    root: boot.root,
    slotDevices: slotCopies(boot).map((p) => p.device),
    deadlineMs: HEALTH_DEADLINE_MS,
  });
  if (!health.healthy) {
    const record = {
      ...before,
      trial: { ...started, outcome: "HealthCheckFailed" as const, message: health.message },
    };
    if (stateMounted) await saveRecord(record);
    return { healthy: false, record, message: health.message };
  }
  await applyEntryActions(
    ESP,
    blessActions(await listEntries(ESP), boot.slot, boot.version),
    boot.partUuids,
  );
  const record = { trial: { ...started, outcome: "Blessed" as const }, rejection: null };
  await saveRecord(record);
  step(`trial passed: ${boot.version} in slot ${boot.slot} is the proven release`);
  return { healthy: true, record };
}

// Step 3: a trial entry with no tries left is a rejected release: why, from the trial's
// record and the crash journal; its entry goes.
async function recordRejection(
  boot: Boot,
  record: BootRecord,
  crashes: readonly CrashRecord[],
  initramfsFailure: InitramfsFailure | null,
): Promise<BootRecord> {
  const exhausted = exhaustedTrials(await listEntries(ESP), boot.slot);
  const [rejected] = exhausted;
  if (!rejected) return record;
  const rejection = rejectionFor(
    rejected,
    record,
    crashes,
    now(),
    initramfsFailure,
    await loaderVariable("LoaderBootCountPath"),
  );
  await applyEntryActions(
    ESP,
    exhausted.map((e) => ({ op: "remove" as const, fileName: e.fileName })),
    boot.partUuids,
  );
  const next = { trial: null, rejection };
  await saveRecord(next);
  step(`release ${rejection.version} was rejected (${rejection.reason}): ${rejection.message}`);
  return next;
}

// status.boot.root: the partition under the verity mapping / runs from (the slot, when
// all is well; empty when it is no slot); without a mapping, the slot the entry named.
function rootOf(boot: Boot): { partUuid: string; verity: boolean } {
  if (!boot.root) return { partUuid: boot.slots[boot.slot].partUuid, verity: false };
  const from = boot.root.from;
  const under = [...Object.values(boot.slots), ...slotCopies(boot)].find((p) => p.device === from);
  return { partUuid: under?.partUuid ?? "", verity: true };
}

// The booted slot's partition, then its copies on other disks (a mirror's other member):
// the initramfs maps a copy when the first does not verify, and dm-verity with the entry's
// root hash makes any copy it maps this release byte for byte.
function slotCopies(boot: Boot): Partition[] {
  const own = boot.slots[boot.slot];
  const label = partitionLabel(boot.slot);
  return [own, ...boot.partitions.filter((p) => p.label === label && p.disk !== boot.bootDisk)];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * What the release build's code cache runs beside the bundle's top level, so what the agent
 * loads and runs lazily is in the cache compiled (image-build/code-cache.ts): execa and a
 * program's run through it, whose compile otherwise delays the first mount by 0.9 s under
 * emulation.
 */
export async function warmUp(): Promise<void> {
  await warmUpPrograms();
}

// Run when started as the agent, not when the release build evaluates the bundle for its
// code cache (image-build/code-cache.ts).
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === "watch")
    runWatch().then(
      (code) => process.exit(code),
      (error: Error) => {
        step(
          `the agent's watch failed: ${firstLine(error)}; the root's init starts it again in 10 s`,
        );
        process.exit(1);
      },
    );
  else
    main().then(
      (code) => process.exit(code),
      (error: Error) => {
        if (error instanceof LikenError && error.reason === BOOT_HELD) {
          step(error.message);
          process.exit(HOLD);
        }
        step(`the boot agent failed: ${firstLine(error)}`);
        process.exit(1);
      },
    );
}
