// `node AGENT_START watch`: the agent's watch as the release's root runs it once the boot is
// up (image-build/release/root-init.ts restarts it 10 s after it ends). This file reads the
// machine and hands watch.ts what it touches: the state partition and the ESP (mounted for
// the watch's life: it writes entries when it withdraws or stages), the update media
// plugged in while the machine runs (polled: the machine has no udev), the status document
// the boot wrote, and the reboot into a trial.

import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { firstLine } from "../../common/errors.ts";
import { BOOT_ROOT } from "../../formats/boot-interface.ts";
import { mapperPath } from "../../tools/cryptsetup.ts";
import { mount, umount } from "../../tools/mount.ts";
import { STATE_MAPPING } from "../encrypted-volumes.ts";
import { readMirrorGeneration, writeMirrorGeneration } from "../esp.ts";
import {
  bootDisk,
  kernelCommandLine,
  type Partition,
  partitions,
  rebootCleanly,
  say,
  step,
} from "../machine.ts";
import { currentSpec, mountUpdateMedium, stageSpec, stagingDisks } from "../staging-step.ts";
import {
  ESP,
  readIdentity,
  readRecord,
  readRunStatus,
  STATE,
  UPDATE,
  writeStatus,
} from "../state-files.ts";
import { EMPTY_RECORD } from "../types.ts";
import { watch } from "./watch.ts";

/** Where a release named by url is downloaded: memory, gone at the next boot. */
export const DOWNLOAD_DIR = "/run/liken/download";
const POLL_MS = 5_000;
const STALL_MS = 60_000;

export async function runWatch(): Promise<number> {
  const status = await readRunStatus();
  if (!status) {
    step(
      "the agent's watch finds no status document in /run/liken: the boot did not complete; reboot the machine",
    );
    return 1;
  }
  const all = await partitions();
  const disk = bootDisk(all, await rootPartUuid());
  const { esp, state, slots } = disk ?? {};
  if (!disk || !esp || !state || !slots?.a || !slots.b) {
    step(
      "the agent's watch does not find the system disk's partitions: read the disk with liken-stick inspect, then reboot the machine",
    );
    return 1;
  }
  await mkdir(STATE, { recursive: true });
  await mkdir(ESP, { recursive: true });
  // Read-only between writes: a reset then finds both written out, and the state's journal
  // empty (the host's debugfs, which inspect reads with, does not replay one).
  // Encrypted, the boot left the state's volume open (agent/volumes.ts).
  const stateDevice = existsSync(mapperPath(STATE_MAPPING))
    ? mapperPath(STATE_MAPPING)
    : state.device;
  await mount(stateDevice, STATE, "ext4", ["ro"]);
  await mount(esp.device, ESP, "vfat", ["ro"]);
  const identity = await readIdentity();
  const writing = writable(
    [
      { device: stateDevice, at: STATE, type: "ext4" },
      { device: esp.device, at: ESP, type: "vfat" },
    ],
    identity.mirror !== null,
  );
  const system = all.filter((p) => p.disk === esp.disk);
  const machine = {
    slot: status.slot,
    version: status.version,
    esp: ESP,
    partUuids: { a: slots.a.partUuid, b: slots.b.partUuid },
    slots: { a: slots.a, b: slots.b },
    ...stagingDisks(all, esp.disk),
    ports: identity.ports,
  };
  await watch({
    running: { slot: status.slot, version: status.version },
    esp: ESP,
    partUuids: machine.partUuids,
    rebootPolicy: identity.rebootPolicy,
    readSpec: updateMedia(system, writing),
    stage: async (spec, releaseDir) => {
      const record = (await readRecord()) ?? EMPTY_RECORD;
      const staged = await stageSpec({ ...machine, record, spec, releaseDir });
      // The downloaded release is in memory: once in the slot (or refused), it goes.
      if (releaseDir === DOWNLOAD_DIR) await rm(DOWNLOAD_DIR, { recursive: true, force: true });
      return staged;
    },
    downloadDir: DOWNLOAD_DIR,
    stallMs: STALL_MS,
    pollMs: POLL_MS,
    readStatus: readRunStatus,
    writeStatus: (next) => writeStatus(next, true),
    reboot: async (staged) => {
      step(`rebooting into ${staged.version} (slot ${staged.slot}) for its one trial boot`);
      await rebootCleanly();
    },
    writing,
    say: step,
    signal: new AbortController().signal,
  });
  return 0;
}

// The spec in force at each poll: an update medium's while one is plugged in (mounted
// read-only when it appears, unmounted when it goes), else the state partition's. The
// system disk's partitions are read once; other disks at each poll, to see a new medium.
function updateMedia(system: readonly Partition[], writing: Writing) {
  let mounted: Partition | null = null;
  let ignored: string | null = null;
  let unsaved: string | null = null;
  // A spec that cannot be kept on the state partition (a disk that refuses writes) is still
  // the medium's, and the watch acts on it: its next write (a withdrawal, a staging) fails
  // on the same disk and says so in StagingFailed. Said once per failure, not at each poll.
  const keepSpec = (write: () => Promise<void>) =>
    writing(write).catch((error: unknown) => {
      const why = firstLine(error);
      if (why !== unsaved)
        say(`liken: the medium's spec could not be copied to the state partition: ${why}`);
      unsaved = why;
    });
  return async () => {
    const found = (await partitions(system)).find((p) => p.label === "LIKEN-UPDATE");
    if (mounted && found?.partUuid !== mounted.partUuid) {
      say(`liken: update medium ${mounted.device} is gone`);
      // A medium pulled out is gone already; the lazy umount frees the mount point.
      await umount("-l", UPDATE).catch(() => undefined);
      mounted = null;
    }
    if (!found) ignored = null;
    else if (!mounted && ignored !== found.partUuid) {
      if (await mountUpdateMedium(found)) mounted = found;
      else ignored = found.partUuid;
    }
    return currentSpec(mounted !== null, keepSpec);
  };
}

type Writing = <T>(write: () => Promise<T>) => Promise<T>;

// The ESP and the state partition taken read-write for one write, and read-only again (a
// remount read-only writes the filesystem out). One write at a time: the watch's steps and
// its download's end may both write.
function writable(
  targets: readonly { readonly device: string; readonly at: string; readonly type: string }[],
  mirrored: boolean,
): Writing {
  let queue: Promise<unknown> = Promise.resolve();
  const remount = async (mode: "rw" | "ro") => {
    for (const t of targets) await mount(t.device, t.at, t.type, ["remount", mode]);
  };
  return <T>(write: () => Promise<T>): Promise<T> => {
    const run = async () => {
      try {
        // Inside the try: a second target that will not go read-write leaves the first read-only again.
        await remount("rw");
        const result = await write();
        // The watch writes the booted disk of a mirror only: its generation goes up, so the
        // next boot, from either disk, carries these writes to the other (agent/mirror-sync.ts).
        if (mirrored) await bumpGeneration();
        return result;
      } finally {
        await remount("ro");
      }
    };
    const result = queue.then(run, run);
    // The queue only orders the writes: each caller sees its own write's failure.
    queue = result.catch(() => undefined);
    return result;
  };
}

async function bumpGeneration(): Promise<void> {
  const next = (await readMirrorGeneration(ESP)) + 1;
  // A generation that will not go up leaves the writes to be judged equal: not a failed write.
  await writeMirrorGeneration(ESP, next).catch(() => undefined);
}

// The booted slot's partition, as the boot agent found it (agent/main.ts identify).
async function rootPartUuid(): Promise<string> {
  const cmdline = await kernelCommandLine();
  // A signed release's command line names no root: the initramfs wrote what it found.
  const recorded = (await readFile(BOOT_ROOT, "utf8").catch(() => "")).trim().split(" ")[1];
  return (cmdline.get("root") ?? "").replace(/^PARTUUID=/i, "") || (recorded ?? "");
}
