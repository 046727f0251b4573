// The boot agent of an installed machine (DESIGN.md section 5), started by the release's
// /init once the state partition's disk is there. At every boot: (1) crash records from
// pstore into the crash journal, (2) a trial boot's health checks, then bless or reject,
// (3) a rejected trial's bookkeeping, (4) staging the spec's release into the other slot,
// (5) the status document. Decisions are boot-plan.ts's; this file reads and writes.
//
// Exit codes for /init: 0 the boot is complete; 3 hold the console (the reason is on it).
// Any other end during a trial makes /init reset the machine, so a trial never hangs.
import { mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { mount, syncAll, umount } from "../tools/mount.ts";
import { rebootNow } from "../tools/reboot.ts";
import {
  blessActions,
  exhaustedTrials,
  exhaustTrial,
  identifyBoot,
  otherSlot,
  rejectionFor,
} from "./boot-plan.ts";
import { collectCrashes } from "./collect-crashes.ts";
import { bootMarker } from "./crash-parse.ts";
import { applyEntryActions, listEntries } from "./esp.ts";
import { checkHealth, type Fault } from "./health.ts";
import {
  bootDisk,
  bootId,
  kernelCommandLine,
  kmsg,
  loaderVariable,
  partitions,
  say,
  step,
  Watchdog,
} from "./machine.ts";
import { staging } from "./staging-step.ts";
import {
  ESP,
  readInstallId,
  readPreviousStatus,
  readRecord,
  rebootPolicy,
  STATE,
  saveRecord,
  TRIAL_MARK,
  UPDATE,
  writeStatus,
} from "./state-files.ts";
import { machineStatus, type StatusInput } from "./status.ts";
import { type BootRecord, EMPTY_RECORD, type Slot } from "./types.ts";

const RELEASE_FILE = "/etc/liken/release.json";
const HOLD = 3;
const HEALTH_DEADLINE_MS = 120_000;
const FAILED_TRIAL_HOLD_MS = 10_000;

class Hold extends Error {}

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

async function main(): Promise<number> {
  const release = JSON.parse(await readFile(RELEASE_FILE, "utf8")) as {
    version: string;
    fault: Fault | null;
  };
  const version = release.version;
  const cmdline = await kernelCommandLine();
  const id = await bootId();
  const slotWord = cmdline.get("liken.slot");
  const cmdlineSlot: Slot | null = slotWord === "a" || slotWord === "b" ? slotWord : null;
  const root = (cmdline.get("root") ?? "").replace(/^PARTUUID=/i, "");
  const disk = bootDisk(await partitions(), root);
  if (!disk) throw new Hold(`no disk holds the partition root=PARTUUID=${root} names`);
  const { esp, state, journal } = disk;
  const slotA = disk.slots.a;
  const slotB = disk.slots.b;
  if (!esp || !state || !journal || !slotA || !slotB)
    throw new Hold(`disk ${root} lacks a liken partition (esp, a, b, journal, state)`);
  const partUuids = { a: slotA.partUuid, b: slotB.partUuid };

  await mkdir(ESP, { recursive: true });
  await mount(esp.device, ESP, "vfat");
  const identity = identifyBoot({
    version,
    cmdlineSlot,
    loaderEntrySelected: await loaderVariable("LoaderEntrySelected"),
    loaderBootCountPath: await loaderVariable("LoaderBootCountPath"),
    entries: await listEntries(ESP),
  });
  if (identity.kind === "unknown") throw new Hold(identity.reason);
  const { slot } = identity;
  const trial = identity.kind === "trial";
  kmsg(bootMarker(id, version, slot, trial));
  step(`booting ${version} from slot ${slot}${trial ? " as its one trial" : ""}`);
  let watchdog: Watchdog | undefined;
  if (trial) {
    await writeFile(TRIAL_MARK, `${version} ${slot}\n`);
    watchdog = Watchdog.arm();
    step(
      watchdog ? "watchdog armed for the trial" : "no watchdog: a hang in the trial is not reset",
    );
    // systemd-boot counts the entry down before it boots it; if it did not, count it here.
    if (identity.entry) await applyEntryActions(ESP, exhaustTrial(identity.entry), partUuids);
  }

  await mkdir(STATE, { recursive: true });
  const stateMounted = await mount(state.device, STATE, "ext4").then(
    () => true,
    (error: Error) => {
      step(`the state partition ${state.device} does not mount: ${error.message.split("\n")[0]}`);
      return false;
    },
  );
  if (!stateMounted && !trial) throw new Hold(`the state partition ${state.device} does not mount`);

  // 1. Crash records.
  const crashes = await collectCrashes(journal, await readInstallId());
  const previous = await readPreviousStatus();
  let record = (await readRecord()) ?? EMPTY_RECORD;
  const policy = await rebootPolicy();
  const base = { now: now(), bootId: id, slot, version, trial, previous };
  const lastCrash = crashes.newest;

  // 2. A trial's health checks.
  if (trial) {
    record = {
      ...record,
      trial: { version, slot, bootId: id, startedAt: now(), outcome: "Started", message: "" },
    };
    const stateWritable = stateMounted && (await saveRecord(record));
    step("trial: checking the slot, the state partition and the release");
    const health = await checkHealth({
      version,
      slot,
      slotPartition: slot === "a" ? slotA : slotB,
      esp: ESP,
      stateWritable,
      fault: release.fault,
      deadlineMs: HEALTH_DEADLINE_MS,
    });
    if (!health.healthy) {
      record = {
        ...record,
        trial: {
          ...(record.trial as NonNullable<BootRecord["trial"]>),
          outcome: "HealthCheckFailed",
          message: health.message,
        },
      };
      if (stateMounted) await saveRecord(record);
      await writeStatus(
        machineStatus({
          ...base,
          phase: "Failed",
          notReady: { reason: "HealthCheckFailed", message: health.message },
          rejection: record.rejection,
          lastCrash,
        }),
        stateMounted,
      );
      step(`trial of ${version} failed: ${health.message}`);
      step(
        `the machine returns to slot ${otherSlot(slot)}: resetting in ${FAILED_TRIAL_HOLD_MS / 1000} s`,
      );
      await sleep(FAILED_TRIAL_HOLD_MS);
      await rebootCleanly();
      return HOLD;
    }
    await applyEntryActions(ESP, blessActions(await listEntries(ESP), slot, version), partUuids);
    record = {
      trial: { ...(record.trial as NonNullable<BootRecord["trial"]>), outcome: "Blessed" },
      rejection: null,
    };
    await saveRecord(record);
    step(`trial passed: ${version} in slot ${slot} is the proven release`);
  } else {
    // 3. A rejected trial's bookkeeping.
    const [rejected] = exhaustedTrials(await listEntries(ESP), slot);
    if (rejected) {
      const rejection = rejectionFor(rejected, record, crashes.all, now());
      await applyEntryActions(
        ESP,
        exhaustedTrials(await listEntries(ESP), slot).map((e) => ({
          op: "remove" as const,
          fileName: e.fileName,
        })),
        partUuids,
      );
      record = { trial: null, rejection };
      await saveRecord(record);
      step(`release ${rejection.version} was rejected (${rejection.reason}): ${rejection.message}`);
    }
  }

  // 4. Staging.
  const staged = await staging({
    slot,
    version,
    record,
    esp: ESP,
    partUuids,
    slots: { a: slotA, b: slotB },
  });
  const statusInput: StatusInput = {
    ...base,
    now: now(),
    phase: "Running",
    rejection: record.rejection,
    lastCrash,
    ...staged.status,
  };
  if (staged.reboot && policy === "Automatic") {
    await writeStatus(machineStatus({ ...statusInput, phase: "Rebooting" }), true);
    watchdog?.disarm();
    step(
      `rebooting into ${staged.reboot.version} (slot ${staged.reboot.slot}) for its one trial boot`,
    );
    await rebootCleanly();
    return HOLD;
  }

  // 5. The status document.
  await writeStatus(
    machineStatus(staged.reboot ? { ...statusInput, rebootPending: staged.reboot } : statusInput),
    true,
  );
  watchdog?.disarm();
  await unlink(TRIAL_MARK).catch(() => undefined);
  await syncAll();
  await umount(STATE).catch(() => undefined);
  await umount(ESP).catch(() => undefined);
  say(`liken ${version} slot ${slot} up`);
  return 0;
}

async function rebootCleanly(): Promise<void> {
  await syncAll().catch(() => undefined);
  await umount(UPDATE).catch(() => undefined);
  await umount(STATE).catch(() => undefined);
  await umount(ESP).catch(() => undefined);
  await rebootNow();
  await sleep(60_000);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    if (error instanceof Hold) {
      step(error.message);
      process.exit(HOLD);
    }
    step(`the boot agent failed: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
