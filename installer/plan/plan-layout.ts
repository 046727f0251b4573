// The planner: a pure function from the disks, the manifest, the machine and the release to
// the layout an install writes, or to the reason none can be made. No I/O, no clock, no
// randomness (the install id comes in), so the same inputs always give the same layout and
// an interrupted install resumes with exactly the table it started.
import { type Arch, DEFAULT_ARCH } from "../../common/arch.ts";
import { partitionLabel } from "../../common/partition-labels.ts";
import { formatSize, formatSizeShort, MIB } from "../../common/size.ts";
import { PARTITION_TYPES } from "../../formats/gpt-types.ts";
import { partitionUuidFor, tableIdFor } from "../../formats/install-ids.ts";
import type { Disk } from "../../hardware/disks/types.ts";
import {
  type DiskSelector,
  type Machine,
  type Manifest,
  machineArch,
  type StorageRole,
} from "../../manifest/types.ts";
import {
  holding,
  holdsInstall,
  inWords,
  type LeftOut,
  type LeftOutCause,
  MIN_ESP_4KN,
  whyLeftOut,
} from "./left-out.ts";
import { compareDisks, describeSelector, matchesSelector } from "./order.ts";
import type {
  DiskAction,
  PartitionContent,
  PlanFailure,
  PlannedDisk,
  PlannedMirror,
  PlannedPartition,
  PlanResult,
} from "./types.ts";

/** The smallest partition a storage role gets, "rest" included. */
export const MIN_ROLE_SIZE = 64 * MIB;

/** The logical sector sizes UEFI boots from and the install lays out in. */
const SECTOR_SIZES = [512, 4096];

export interface PlanInput {
  readonly disks: readonly Disk[];
  readonly manifest: Manifest;
  readonly machine: string;
  /**
   * The release to install; without it the slot size and the arch are checked against
   * nothing. A release without an arch is amd64's.
   */
  readonly release?: {
    readonly version: string;
    readonly rootfsSize: number;
    readonly arch?: Arch;
  };
  readonly wipe: boolean;
  /**
   * Other clusters whose disks a wipe may erase, because the operator named them
   * (`--wipe-cluster`). Without it a wipe erases only this cluster's disks.
   */
  readonly wipeClusters?: readonly string[];
  /** The id a fresh install gets; a resumed install keeps the one in its claim. */
  readonly newInstallId: string;
}

interface Candidate {
  readonly disk: Disk;
  readonly action: DiskAction;
}

export function planLayout(input: PlanInput): PlanResult {
  const { manifest } = input;
  const machine = manifest.machines.find((m) => m.name === input.machine);
  if (!machine) return unknownMachine(manifest, input.machine);
  const version = input.release?.version ?? manifest.release.version;
  const slot = alignUp(manifest.layout.slot);
  const unfit = input.release && releaseUnfit(input.release, machine, version, slot);
  if (unfit) return unfit;

  const leftOut: LeftOut[] = [];
  const candidates = judgeDisks(input, machine, leftOut);
  const { pool, installId } = poolToWrite(candidates, input.newInstallId, leftOut);
  if (pool.length === 0) return fail(...nothingEligible(leftOut, input.machine), leftOut);

  const systemSizes = systemPartitionSizes(manifest, slot);
  const systemNeed = systemSizes.reduce((a, b) => a + b, 0);
  const resuming = pool.some((c) => c.action === "resume");
  const picked = pickSystemDisks(pool, machine, systemNeed, manifest.layout.esp, resuming);
  if ("failure" in picked)
    return fail(picked.failure.reason, picked.failure.message, picked.failure.hint, [
      ...leftOut,
      ...picked.failure.considered,
    ]);

  const builders = new Map<Candidate, DiskBuilder>();
  const members = picked.candidates;
  for (const [i, c] of members.entries()) {
    const peer = members.length === 2 ? members[1 - i] : undefined;
    builders.set(c, systemDisk(c, installId, systemSizes, i, peer));
  }
  const others = pool.filter((c) => !members.includes(c));
  // The second member keeps its rest free: the two members stay laid out alike.
  const unplaced = placeRoles(manifest.storage, builders, others, installId, members[1]);
  if (unplaced)
    return roleDoesNotFit(unplaced.role, unplaced.size, builders, [...leftOut, ...picked.tooSmall]);
  // A disk that could not hold or boot the system, and holds no role, is left out for that;
  // a mirror's member that a wipe takes is erased with its peer, even when nothing needs it.
  for (const c of others) {
    if (builders.has(c)) continue;
    if (c.action === "erase-and-write" && c.disk.claim?.mirror) {
      builders.set(c, new DiskBuilder(c, "storage", installId, builders.size));
      continue;
    }
    const notSystem = picked.tooSmall.find((l) => l.disk === c.disk);
    leftOut.push(notSystem ?? { disk: c.disk, cause: { kind: "not-needed" } });
  }
  return {
    ok: true,
    layout: {
      cluster: manifest.cluster,
      machine: machine.name,
      release: version,
      installId,
      wipe: input.wipe,
      systemDiskWhy: picked.why,
      disks: [...builders.values()].map((b) => b.build()),
      leftOut: inWords(leftOut),
    },
  };
}

function unknownMachine(manifest: Manifest, name: string): PlanResult {
  const names = manifest.machines.map((m) => m.name).join(", ");
  return fail(
    "UnknownMachine",
    `the manifest has no machine named "${name}"`,
    `choose one of: ${names}`,
    [],
  );
}

function releaseTooLarge(version: string, rootfsSize: number, slot: number): PlanResult {
  return fail(
    "ReleaseTooLarge",
    `release ${version}'s root filesystem (${formatSize(rootfsSize)}) is larger than a slot (${formatSize(slot)})`,
    "raise [layout] slot in the manifest, or build a smaller release",
    [],
  );
}

// A release too large for a slot, or of another arch than the machine's: a stick or a
// folder serves the arch of the release it carries, and a machine of the other arch could
// not start what would be written.
function releaseUnfit(
  release: NonNullable<PlanInput["release"]>,
  machine: Machine,
  version: string,
  slot: number,
): PlanResult | undefined {
  if (release.rootfsSize > slot) return releaseTooLarge(version, release.rootfsSize, slot);
  const releaseArch = release.arch ?? DEFAULT_ARCH;
  const arch = machineArch(machine);
  if (arch === releaseArch) return undefined;
  return fail(
    "OtherArch",
    `machine ${machine.name} is an ${arch} machine (its arch in the manifest), and release ${version} is for ${releaseArch} machines`,
    `install it from a stick built from an ${arch} release (liken-stick release --arch ${arch}), or correct its arch in the manifest`,
    [],
  );
}

// Each disk in stable order, judged: the ones this install may write, and the others
// added to leftOut with their cause.
function judgeDisks(input: PlanInput, machine: Machine, leftOut: LeftOut[]): Candidate[] {
  const candidates: Candidate[] = [];
  for (const disk of [...input.disks].sort(compareDisks)) {
    const judged = judge(disk, input.manifest, machine, input.wipe, input.wipeClusters ?? []);
    if ("cause" in judged) leftOut.push({ disk, cause: judged.cause });
    else candidates.push({ disk, action: judged.action });
  }
  return candidates;
}

// An interrupted install of this machine is finished on the disks it started, with its id;
// this machine's other installs are left out.
function poolToWrite(
  candidates: readonly Candidate[],
  newInstallId: string,
  leftOut: LeftOut[],
): { pool: Candidate[]; installId: string } {
  const partial = candidates.find((c) => c.action === "resume" && !c.disk.claim?.complete);
  const installId = partial?.disk.claim?.installId ?? newInstallId;
  const pool = candidates.filter(
    (c) => c.action !== "resume" || (partial && c.disk.claim?.installId === installId),
  );
  for (const c of candidates) {
    if (pool.includes(c)) continue;
    const claim = c.disk.claim;
    leftOut.push({
      disk: c.disk,
      cause: claim?.complete
        ? { kind: "installed", cluster: claim.cluster, machine: claim.machine }
        : { kind: "other-partial" },
    });
  }
  return { pool, installId };
}

function systemPartitionSizes(manifest: Manifest, slot: number): number[] {
  const { layout } = manifest;
  return [layout.esp, slot, slot, layout.crash_journal, layout.state].map(alignUp);
}

// A system disk: ESP, slot A, slot B, journal, state; on the first, the storage roles that
// fit follow. `index` 1 and a peer make it the second member of a mirror.
function systemDisk(
  system: Candidate,
  installId: string,
  sizes: readonly number[],
  index: number,
  peer: Candidate | undefined,
): DiskBuilder {
  const mirror = peer ? { member: (index + 1) as 1 | 2, peer: mirrorPeerOf(peer.disk) } : undefined;
  const builder = new DiskBuilder(system, "system", installId, index, mirror);
  const contents: [PartitionContent, string][] = [
    ["esp", partitionLabel("esp")],
    ["slot-a", partitionLabel("a")],
    ["slot-b", partitionLabel("b")],
    ["journal", partitionLabel("journal")],
    ["state", partitionLabel("state")],
  ];
  for (const [i, [content, label]] of contents.entries()) {
    builder.add(content, label, sizes[i] as number);
  }
  return builder;
}

// The fixed-size roles in the manifest's order, each on the first disk with room (the disks
// already in the layout, then the next of the others), then the "rest" role on what is left.
// Returns the role that fits on no disk.
function placeRoles(
  storage: readonly StorageRole[],
  builders: Map<Candidate, DiskBuilder>,
  others: readonly Candidate[],
  installId: string,
  keepFree: Candidate | undefined,
): { role: string; size: number } | undefined {
  const placeOn = (size: number): DiskBuilder | undefined => {
    for (const [c, b] of builders) if (c !== keepFree && b.free() >= size) return b;
    for (const c of others) {
      if (builders.has(c)) continue;
      const b = new DiskBuilder(c, "storage", installId, builders.size);
      if (b.free() >= size) {
        builders.set(c, b);
        return b;
      }
    }
    return undefined;
  };
  const fixed = storage.filter((r): r is StorageRole & { size: number } => r.size !== "rest");
  const rest = storage.find((r) => r.size === "rest");
  for (const role of fixed) {
    const size = alignUp(role.size);
    const target = placeOn(size);
    if (!target) return { role: role.role, size };
    target.add("storage", partitionLabel(role.role), size, role.role);
  }
  if (rest) {
    const target = placeOn(MIN_ROLE_SIZE);
    if (!target) return { role: rest.role, size: MIN_ROLE_SIZE };
    target.add("storage", partitionLabel(rest.role), target.free(), rest.role);
  }
  return undefined;
}

// Whether a disk may be written by this install, and how.
function judge(
  disk: Disk,
  manifest: Manifest,
  machine: Machine,
  wipe: boolean,
  wipeClusters: readonly string[],
): { action: DiskAction } | { cause: LeftOutCause } {
  const { reasons } = disk;
  switch (disk.verdict) {
    case "blank":
      return { action: "write" };
    case "liken": {
      const c = disk.claim;
      const ours = c !== undefined && c.cluster === manifest.cluster && c.machine === machine.name;
      // Another cluster's disk is that cluster's machine: a wipe of this one never takes it
      // unless the operator names that cluster.
      if (c && c.cluster !== manifest.cluster && !wipeClusters.includes(c.cluster))
        return { cause: { kind: "other-cluster", claim: c, cluster: manifest.cluster, wipe } };
      if (wipe) return { action: "erase-and-write" };
      // A disk of this machine's install is resumed while any disk of that install is
      // partial, complete ones too: the install completes each disk in turn.
      if (ours) return { action: "resume" };
      return { cause: { kind: "liken-install", claim: c } };
    }
    case "foreign":
      // A disk that could not be read may hold anything: it is refused for that, not for data.
      return reasons.every((r) => r.startsWith("probe-failed:"))
        ? { cause: { kind: "unreadable", reasons } }
        : { cause: { kind: "foreign-data", reasons } };
    case "ineligible":
      return { cause: { kind: "ineligible", reasons } };
    case "unsupported":
      return { cause: { kind: "unsupported", reasons } };
  }
}

type Picked =
  | {
      /** One disk, or the two members of a mirror in order. */
      readonly candidates: readonly Candidate[];
      readonly why: string;
      readonly tooSmall: LeftOut[];
    }
  | { readonly failure: Omit<PlanFailure, "considered"> & { considered: LeftOut[] } };

// The system disk: the one an interrupted install started (both, for a mirror), else the
// first in stable order (among those system_disk selects) that holds the system partitions
// and can boot them; with `mirror = true` the first two.
function pickSystemDisks(
  pool: readonly Candidate[],
  machine: Machine,
  need: number,
  esp: number,
  resuming: boolean,
): Picked {
  const selector = machine.system_disk;
  const wanted = selector?.mirror ? 2 : 1;
  const resumed = resuming ? resumedSystemDisks(pool) : [];
  if (resumed.length >= wanted) {
    const paths = resumed.map((m) => m.disk.path).join(" and ");
    const why = `${paths} ${resumed.length > 1 ? "hold" : "holds"} the interrupted install being finished`;
    return { candidates: resumed.slice(0, 2), why, tooSmall: [] };
  }
  const others = pool.filter((c) => !resumed.includes(c));
  const matching = selector ? others.filter((c) => matchesSelector(c.disk, selector)) : others;
  if (selector && matching.length === 0 && resumed.length === 0)
    return noDiskMatches(selector, pool);
  // An install killed before the second member's claim finishes with the disk it chose.
  const found = firstThatHold(matching, need, esp, wanted - resumed.length);
  const chosen = [...resumed, ...found.chosen];
  const { unbootable, tooSmall } = found;
  const [first, second] = chosen;
  if (!first) return noDiskHolds(unbootable, tooSmall, need);
  if (wanted === 2 && !second)
    return onlyOneMember(first, selector ?? {}, [...unbootable, ...tooSmall], pool, matching);
  const matched = selector
    ? `matching system_disk ${describeSelector(selector)}`
    : "in stable order (transport, serial, WWN, path)";
  const why = second
    ? `${first.disk.path} and ${second.disk.path} are the two first eligible disks ${matched}: the system is mirrored on both`
    : `${first.disk.path} is the first eligible disk ${matched}`;
  return { candidates: chosen, why, tooSmall: [...unbootable, ...tooSmall] };
}

// A mirror with one disk is not a mirror: refused, naming the one found and every other.
function onlyOneMember(
  first: Candidate,
  selector: DiskSelector,
  leftOut: LeftOut[],
  pool: readonly Candidate[],
  matching: readonly Candidate[],
): Picked {
  const unmatched = pool
    .filter((c) => c !== first && !matching.includes(c))
    .map(
      (c) =>
        ({
          disk: c.disk,
          cause: { kind: "no-match", selector: describeSelector(selector) },
        }) as LeftOut,
    );
  return {
    failure: {
      reason: "NoEligibleDisk",
      message: `system_disk ${describeSelector(selector)} asks for a mirror of two disks, and only ${first.disk.path} is eligible`,
      hint: "attach a second blank disk the selector matches, or remove mirror = true",
      considered: [...leftOut, ...unmatched],
    },
  };
}

// The system disks of the interrupted install, the mirror's members in their order.
function resumedSystemDisks(pool: readonly Candidate[]): Candidate[] {
  return pool
    .filter((x) => x.action === "resume" && x.disk.claim?.use === "system")
    .sort((a, b) => (a.disk.claim?.mirror?.member ?? 1) - (b.disk.claim?.mirror?.member ?? 1));
}

// The first `wanted` disks that hold `need` and whose sectors the firmware boots; the ones
// before them that hold it but cannot boot, and those too small, are left out for that.
function firstThatHold(
  candidates: readonly Candidate[],
  need: number,
  esp: number,
  wanted: number,
): { chosen: Candidate[]; unbootable: LeftOut[]; tooSmall: LeftOut[] } {
  const chosen: Candidate[] = [];
  const unbootable: LeftOut[] = [];
  const tooSmall: LeftOut[] = [];
  for (const c of candidates) {
    if (chosen.length === wanted) break;
    if (usable(c.disk) < need) {
      tooSmall.push({ disk: c.disk, cause: { kind: "too-small", need } });
      continue;
    }
    const sectors = sectorProblem(c.disk, esp);
    if (!sectors) chosen.push(c);
    else unbootable.push({ disk: c.disk, cause: sectors });
  }
  return { chosen, unbootable, tooSmall };
}

function noDiskMatches(selector: DiskSelector, pool: readonly Candidate[]): Picked {
  const described = describeSelector(selector);
  return {
    failure: {
      reason: "NoEligibleDisk",
      message: `no eligible disk matches system_disk ${described}`,
      hint: "check the selector against liken-stick disks, or attach the disk it names",
      considered: pool.map((c) => ({
        disk: c.disk,
        cause: { kind: "no-match", selector: described },
      })),
    },
  };
}

// A disk that holds the system partitions but cannot boot them says more than the small ones.
function noDiskHolds(unbootable: LeftOut[], tooSmall: LeftOut[], need: number): Picked {
  const [first] = unbootable;
  if (first) {
    return {
      failure: {
        reason: "SectorSizeUnsupported",
        message: `no eligible disk can boot this layout: ${first.disk.path} ${whyLeftOut(first.cause)}`,
        hint:
          first.cause.kind === "esp-too-small"
            ? `set [layout] esp to at least "${MIN_ESP_4KN / MIB}MiB" in the manifest, or attach a disk with 512-byte sectors`
            : "attach a disk with 512- or 4096-byte sectors (a SAS drive formatted with 520 or 528 for a storage array must be formatted again)",
        considered: unbootable,
      },
    };
  }
  return {
    failure: {
      reason: "DiskTooSmall",
      message: `no eligible disk can hold the system partitions (${formatSizeShort(need + 2 * MIB)})`,
      hint: "attach a larger blank disk, or shrink [layout] in the manifest",
      considered: tooSmall,
    },
  };
}

// Why no disk can be written, led by the most telling cause among those left out.
function nothingEligible(
  leftOut: readonly LeftOut[],
  machine: string,
): [PlanFailure["reason"], string, string] {
  const held = leftOut.flatMap(({ disk, cause }) =>
    holdsInstall(cause) ? [{ path: disk.path, cause }] : [],
  );
  // Only a disk a wipe would take is worth the advice to wipe.
  const wipeable = held.find((d) => d.cause.kind !== "other-cluster");
  const [otherCluster] = held;
  if (!wipeable && otherCluster) {
    return [
      "DiskNotBlank",
      `no blank disk: ${otherCluster.path} ${holding(otherCluster.cause)}`,
      "attach a blank disk; liken erases another cluster's disk only when wipe and reinstall names that cluster",
    ];
  }
  if (wipeable) {
    return [
      "DiskNotBlank",
      `no blank disk: ${wipeable.path} ${holding(wipeable.cause)}`,
      `use wipe and reinstall as ${machine} to replace it`,
    ];
  }
  const unsupported = leftOut.find((d) => d.cause.kind === "unsupported")?.disk;
  if (unsupported) {
    const module = unsupported.reasons
      .find((r) => r.startsWith("missing-driver:"))
      ?.slice("missing-driver:".length);
    return [
      "MissingDriver",
      `no usable disk: ${unsupported.path} needs ${module}, which the release cannot load at boot`,
      "run liken-stick hwreport with the same release: it names the driver and the disks that need it",
    ];
  }
  // Only write-protected disks: the protection is the owner's word, so say that it is
  // what stops the install, not data on the disk.
  const readOnly = leftOut.filter((d) => d.disk.reasons.includes("read-only"));
  if (readOnly.length > 0 && readOnly.length === leftOut.length) {
    return [
      "NoEligibleDisk",
      `no disk can be written: ${readOnly.map((d) => d.disk.path).join(", ")} ${readOnly.length > 1 ? "are" : "is"} read-only`,
      "name a disk that may be written, or, if it may be, remove its write protection: chmod u+w on an image file, blockdev --setrw on a block device",
    ];
  }
  return [
    "NoEligibleDisk",
    leftOut.length > 0
      ? "no blank disk: every disk holds data or cannot be a target"
      : "no disk found",
    "attach a blank disk; liken never writes a disk that holds data it did not write",
  ];
}

function roleDoesNotFit(
  role: string,
  size: number,
  builders: Map<Candidate, DiskBuilder>,
  leftOut: readonly LeftOut[],
): PlanResult {
  const room = [...builders.values()]
    .map((b) => `${b.path} has ${formatSizeShort(b.free())} free`)
    .join(", ");
  return fail(
    "DiskTooSmall",
    `storage role ${role} (${formatSizeShort(size)}) fits on no disk: ${room}`,
    "attach another blank disk, or shrink the role in the manifest",
    leftOut,
  );
}

// Lays partitions end to end from 1 MiB, leaving the last MiB for the backup GPT and the
// claim's tail copy. Everything is a whole MiB, which is a whole number of 512-byte and of
// 4096-byte sectors.
class DiskBuilder {
  private readonly partitions: PlannedPartition[] = [];
  private cursor = MIB;
  private readonly end: number;
  readonly path: string;

  constructor(
    private readonly candidate: Candidate,
    private readonly use: "system" | "storage",
    private readonly installId: string,
    private readonly index: number,
    private readonly mirror?: PlannedMirror,
  ) {
    this.path = candidate.disk.path;
    this.end = Math.floor(candidate.disk.size / MIB) * MIB - MIB;
  }

  free(): number {
    return Math.max(0, this.end - this.cursor);
  }

  add(content: PartitionContent, label: string, size: number, role?: string): void {
    const typeKey = content === "slot-a" || content === "slot-b" ? "slot" : content;
    this.partitions.push({
      number: this.partitions.length + 1,
      label,
      content,
      ...(role ? { role } : {}),
      typeGuid: PARTITION_TYPES[typeKey],
      partUuid: partitionUuidFor(this.installId, this.index, label),
      start: this.cursor,
      size,
    });
    this.cursor += size;
  }

  build(): PlannedDisk {
    const d = this.candidate.disk;
    return {
      path: d.path,
      kind: d.kind,
      use: this.use,
      action: this.candidate.action,
      size: d.size,
      sectorSize: d.logicalSectorSize,
      ...(d.model ? { model: d.model } : {}),
      ...(d.serial ? { serial: d.serial } : {}),
      ...(d.wwn ? { wwn: d.wwn } : {}),
      ...(d.claim ? { claimInstallId: d.claim.installId } : {}),
      ...(this.mirror ? { mirror: this.mirror } : {}),
      tableId: tableIdFor(this.installId, this.index),
      partitions: this.partitions,
      free: this.free(),
    };
  }
}

// Why the firmware could not boot the system partitions from this disk; undefined when it can.
function sectorProblem(d: Disk, esp: number): LeftOutCause | undefined {
  const sector = d.logicalSectorSize;
  if (!SECTOR_SIZES.includes(sector)) return { kind: "sector-size", sector };
  if (sector === 4096 && esp < MIN_ESP_4KN) return { kind: "esp-too-small", esp };
  return undefined;
}

// The other member as its claim names it: serial and WWN where the disk has them, else its path.
export function mirrorPeerOf(d: Disk): PlannedMirror["peer"] {
  if (!d.serial && !d.wwn) return { path: d.path };
  return { ...(d.serial ? { serial: d.serial } : {}), ...(d.wwn ? { wwn: d.wwn } : {}) };
}

function usable(d: Disk): number {
  return Math.max(0, Math.floor(d.size / MIB) * MIB - 2 * MIB);
}

function alignUp(bytes: number): number {
  return Math.ceil(bytes / MIB) * MIB;
}

function fail(
  reason: PlanFailure["reason"],
  message: string,
  hint: string,
  considered: readonly LeftOut[],
): PlanResult {
  return { ok: false, failure: { reason, message, hint, considered: inWords(considered) } };
}
