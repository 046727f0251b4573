// What the menu shows, read from the machine: the disks, the release, a plan of install as
// and of wipe and reinstall as for every machine of the manifest. Read at start, after
// every install and after the shell (the operator may have changed a disk there).
import { randomUUID } from "node:crypto";
import { oneLine } from "../common/errors.ts";
import { requireRelease } from "../formats/release.ts";
import { inventoryDisks } from "../hardware/disks/index.ts";
import { readMachineIdentity } from "../hardware/machine-identity.ts";
import { releaseMissingDrivers } from "../hardware/missing-drivers.ts";
import { readTpmPresence } from "../hardware/tpm/presence.ts";
import { chooseMachine } from "../installer/unattended/choose-machine.ts";
import type { Manifest } from "../manifest/index.ts";
import { mirrorSystemEnds } from "./mirror-system-end.ts";
import { planMachines } from "./plans.ts";
import type { Identity, MenuData } from "./types.ts";

export interface MenuSources {
  readonly manifest: Manifest;
  readonly releaseDir: string;
  readonly paths: readonly string[];
  readonly identity: Identity;
  readonly warnings: readonly string[];
  readonly features: MenuData["features"];
}

/**
 * What the first screen shows before the disks are read (a second or two on a slow
 * machine): the manifest's machines, the release's problem if any, this machine.
 */
export async function initialMenuData(src: MenuSources): Promise<MenuData> {
  const { releaseProblem } = await readRelease(src);
  return {
    cluster: src.manifest.cluster,
    release: src.manifest.release.version,
    ...(releaseProblem ? { releaseProblem } : {}),
    identity: src.identity,
    machines: src.manifest.machines.map((m) => m.name),
    disks: [],
    disksReading: true,
    plans: {},
    warnings: src.warnings,
    features: src.features,
  };
}

async function readRelease(src: MenuSources) {
  const { manifest } = src;
  const release = await requireRelease(src.releaseDir).then(
    (r) => ({ ok: true as const, release: r }),
    (error: unknown) => ({ ok: false as const, problem: oneLine(error) }),
  );
  let releaseProblem = release.ok ? undefined : release.problem;
  if (release.ok && release.release.version !== manifest.release.version) {
    releaseProblem = `${src.releaseDir} holds release ${release.release.version}, but the manifest installs ${manifest.release.version}`;
  }
  return { release, releaseProblem };
}

/** The menu's data; `previous` keeps the last disk list when the disks cannot be read again. */
export async function loadMenuData(src: MenuSources, previous?: MenuData): Promise<MenuData> {
  const { manifest } = src;
  const { release, releaseProblem } = await readRelease(src);
  // The release's boot-path verdict: a disk it cannot drive at boot is unsupported.
  const missing = await releaseMissingDrivers(src.releaseDir).catch(() => undefined);
  const listed = await inventoryDisks({ paths: src.paths, missingDrivers: missing }).then(
    (disks) => ({ disks, problem: undefined }),
    (error: unknown) => {
      if (!previous) throw error;
      return { disks: previous.disks, problem: oneLine(error) };
    },
  );
  const matched = await matchedMachine(manifest);
  const plans = planMachines(
    listed.disks,
    manifest,
    release.ok ? release.release : undefined,
    randomUUID,
    await mirrorSystemEnds(listed.disks),
    readTpmPresence(),
  );
  return {
    cluster: manifest.cluster,
    release: manifest.release.version,
    ...(releaseProblem ? { releaseProblem } : {}),
    identity: src.identity,
    machines: manifest.machines.map((m) => m.name),
    ...(matched ? { matched } : {}),
    disks: listed.disks,
    ...(listed.problem ? { disksProblem: listed.problem } : {}),
    plans,
    warnings: src.warnings,
    features: src.features,
  };
}

/** The one machine whose match is this hardware (as liken.install=auto would choose), if any. */
async function matchedMachine(manifest: Manifest): Promise<string | undefined> {
  if (!manifest.machines.some((m) => m.match)) return undefined;
  const choice = chooseMachine(manifest.machines, await readMachineIdentity());
  return choice.kind === "one" ? choice.machine : undefined;
}
