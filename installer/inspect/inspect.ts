// `inspect`: reads an installed disk from outside, a device or an image file, without
// mounting anything and without writing a byte. The claim decides whether it is liken's;
// past that, every part is read on its own, and a part that is missing or unreadable (a
// partial install, a damaged filesystem) is null and named in `problems`, never an error.
import { constants, type FileHandle, open } from "node:fs/promises";
import { LikenError } from "../../common/errors.ts";
import {
  partitionLabel,
  SYSTEM_LABELS,
  type SystemPartitionName,
} from "../../common/partition-labels.ts";
import { MIB } from "../../common/size.ts";
import { type Slot, slotDir } from "../../formats/boot-entries.ts";
import {
  CLAIM_HEAD_OFFSET,
  CLAIM_SIZE,
  claimTailOffset,
  judgeClaim,
  summarizeClaim,
} from "../../formats/claim.ts";
import { judgeBackupGpt, judgeGpt } from "../../formats/gpt.ts";
import { type Identity, parseIdentity, readNetworkDeclaration } from "../../formats/identity.ts";
import { parseInstallerStatus } from "../../formats/installer-status.ts";
import { readJournal } from "../../formats/journal-io.ts";
import type { CrashRecord } from "../../formats/journal-records.ts";
import { isLuksHeader, LUKS_MAGIC } from "../../formats/luks-token.ts";
import { type MachineStatus, parseMachineStatus } from "../../formats/machine-status.ts";
import { readReleaseToml } from "../../formats/release.ts";
import { parseSpecDocument } from "../../formats/spec-document.ts";
import { STATE_FILES } from "../../formats/state-partition.ts";
import { hashRegion } from "../../formats/write-image.ts";
import { discoverDisks } from "../../hardware/disks/discover.ts";
import { inventoryDisks } from "../../hardware/disks/index.ts";
import { type EspFiles, readEsp } from "./read-esp.ts";
import { readState, type StateFiles } from "./read-state.ts";
import type {
  InspectedClaim,
  InspectedJournal,
  InspectedNetwork,
  InspectedPartition,
  InspectedSlot,
  Inspection,
  Problem,
} from "./types.ts";

/** What the liken disk at `path` holds; a LikenError refusal when it carries no valid claim. */
export async function inspectDisk(path: string): Promise<Inspection> {
  const [facts] = await discoverDisks([path]);
  if (!facts) throw new Error(`${path} was not found`);
  const handle = await open(path, constants.O_RDONLY);
  try {
    const claim = await readClaim(handle, facts.size);
    if (!claim) throw await notLiken(path);
    const problems: Problem[] = [];
    const partitions = await readPartitions(handle, facts.logicalSectorSize, facts.size, problems);
    const find = (label: string) => partitions.find((p) => p.label === label);
    if (claim.use === "system" && partitions.length > 0) {
      for (const label of SYSTEM_LABELS.filter((l) => !find(l)))
        problems.push(`partition-missing:${label}`);
    }
    const system = (name: SystemPartitionName) => find(partitionLabel(name));
    const esp = await readPart(system("esp"), "esp", problems, (p) => readEsp(path, p.start));
    // An encrypted state partition opens on its machine only: nothing to read here.
    const sealed = system("state")?.encrypted ? undefined : system("state");
    const state = await readPart(sealed, "state", problems, (p) => readState(path, p.start));
    const slots = {
      a: await inspectSlot(handle, "a", system("a"), esp, problems),
      b: await inspectSlot(handle, "b", system("b"), esp, problems),
    };
    const { journal, crashes } = await inspectJournal(handle, system("journal"), claim, problems);
    return {
      path,
      size: facts.size,
      claim,
      partitions,
      slots,
      entries: esp?.entries ?? null,
      loaderConf: esp?.loaderConf ?? null,
      ...readDocuments(state, problems),
      journal,
      crashes,
      problems,
    };
  } finally {
    await handle.close();
  }
}

async function readClaim(handle: FileHandle, size: number): Promise<InspectedClaim | undefined> {
  const verdict = judgeClaim(
    await readAt(handle, CLAIM_HEAD_OFFSET, CLAIM_SIZE, size),
    await readAt(handle, claimTailOffset(size), CLAIM_SIZE, size),
  );
  if (verdict.state !== "valid") return undefined;
  return { ...summarizeClaim(verdict.claim), copies: verdict.copies };
}

// The refusal names what the disk holds instead, as `disks` would say it.
async function notLiken(path: string): Promise<LikenError> {
  // The refusal says the disk is not liken's either way; the verdict only adds why.
  const [disk] = await inventoryDisks({ paths: [path] }).catch(() => []);
  const reasons = disk?.reasons.length ? disk.reasons.join(", ") : "no valid liken claim";
  return new LikenError({
    kind: "refused",
    what: `${path} is not a liken disk: ${reasons}`,
    hint: `liken-stick disks ${path} says what it holds`,
  });
}

// The primary table, else the backup: a liken disk whose first sectors were damaged still
// shows its partitions. A table that breaks a rule is never read further (formats/gpt.ts).
async function readPartitions(
  handle: FileHandle,
  sectorSize: number,
  diskSize: number,
  problems: Problem[],
): Promise<InspectedPartition[]> {
  const primary = judgeGpt(await readAt(handle, 0, MIB, diskSize), [sectorSize], diskSize);
  const backup =
    primary.state === "valid"
      ? primary
      : judgeBackupGpt(await readAt(handle, diskSize - 2 * MIB, 2 * MIB, diskSize), diskSize, [
          sectorSize,
        ]);
  if (primary.state === "implausible") problems.push(`gpt:implausible:${primary.flaw}`);
  if (backup.state === "implausible") problems.push(`gpt:backup-implausible:${backup.flaw}`);
  if (primary.state !== "valid" && backup.state === "valid") problems.push("gpt:backup-only");
  const gpt = backup.state === "valid" ? backup.gpt : undefined;
  if (primary.state === "none" && backup.state === "none") problems.push("gpt:none");
  const partitions: InspectedPartition[] = [];
  for (const e of gpt?.entries ?? []) {
    const head = await readAt(handle, e.start, LUKS_MAGIC.length, diskSize);
    partitions.push({
      number: e.number,
      label: e.name,
      start: e.start,
      size: e.size,
      typeGuid: e.typeGuid,
      partUuid: e.uuid,
      ...(isLuksHeader(head) ? { encrypted: true as const } : {}),
    });
  }
  return partitions;
}

// A filesystem that cannot be read is a part of the disk that is not there yet, or broken.
async function readPart<T>(
  partition: InspectedPartition | undefined,
  name: "esp" | "state",
  problems: Problem[],
  read: (p: InspectedPartition) => Promise<T>,
): Promise<T | undefined> {
  if (!partition) return undefined;
  try {
    return await read(partition);
  } catch {
    // A part that cannot be read is a finding, named in problems, not a failure of inspect.
    problems.push(`${name}:unreadable`);
    return undefined;
  }
}

async function inspectSlot(
  handle: FileHandle,
  slot: Slot,
  partition: InspectedPartition | undefined,
  esp: EspFiles | undefined,
  problems: Problem[],
): Promise<InspectedSlot> {
  const file = `${slotDir(slot)}/release.toml`;
  // The version still shows when the file's [files] is damaged: release.toml's fields are
  // read one by one.
  const release = parse(esp?.releases[slot], file, readReleaseToml, problems);
  if (!release) return { version: null, hashMatches: null };
  const version = release.version ?? null;
  const rootfs = release.files?.["rootfs.img"];
  if (!rootfs) {
    problems.push(`unparseable:${file}`);
    return { version, hashMatches: null };
  }
  const { sha256, size } = rootfs;
  if (!partition || size > partition.size) {
    if (partition) problems.push(`slot-too-small:${slot}`);
    return { version, hashMatches: false };
  }
  // A disk shorter than its GPT says (a truncated image) cannot hold the release.
  const actual = await hashRegion(handle, partition.start, size).catch(() => undefined);
  if (actual === undefined) problems.push(`slot-unreadable:${slot}`);
  return { version, hashMatches: actual === sha256 };
}

// Records an earlier install left in the same blocks are not this machine's crashes: they
// are read only when the journal's header names the claim's install.
async function inspectJournal(
  handle: FileHandle,
  partition: InspectedPartition | undefined,
  claim: InspectedClaim,
  problems: Problem[],
): Promise<{ journal: InspectedJournal | null; crashes: CrashRecord[] }> {
  if (!partition) return { journal: null, crashes: [] };
  // A journal that cannot be read is the finding journal:invalid, below.
  const read = await readJournal(handle, partition.start, partition.size).catch(() => undefined);
  if (!read) {
    problems.push("journal:invalid");
    return { journal: { valid: false, installId: null, records: 0, skipped: 0 }, crashes: [] };
  }
  const { header, scan } = read;
  if (header.installId !== claim.installId) {
    problems.push("journal:other-install");
    return {
      journal: { valid: true, installId: header.installId, records: 0, skipped: 0 },
      crashes: [],
    };
  }
  return {
    journal: {
      valid: true,
      installId: header.installId,
      records: scan.records.length,
      skipped: scan.skipped,
    },
    crashes: scan.records.map((r) => r.crash),
  };
}

// Each with the one reader formats/ has for it: the reader the installer and the agent use.
function readDocuments(
  state: StateFiles | undefined,
  problems: Problem[],
): Pick<Inspection, "status" | "installer" | "identity" | "spec" | "network"> {
  const read = <T>(file: keyof StateFiles, parser: (text: string) => T | null) =>
    parse(state?.[file], STATE_FILES[file], parser, problems);
  const status = read("machineStatus", parseMachineStatus);
  const identity = read("identity", parseIdentity);
  return {
    status,
    installer: read("installerStatus", parseInstallerStatus),
    identity,
    spec: read("spec", parseSpecDocument),
    network: inspectNetwork(identity, status),
  };
}

/** The network block's facts: what reads of the declared network, and the last boot's as it is. */
export function inspectNetwork(
  identity: Identity | null,
  status: MachineStatus | null,
): InspectedNetwork {
  // Read as unknown: an older install wrote no network, a person's edit may have any type.
  const declared: unknown = identity?.network;
  const read = declared === undefined ? null : readNetworkDeclaration(declared);
  return {
    declared: read?.network ?? null,
    declaredErrors: read?.errors ?? [],
    lastBoot: status?.network ?? null,
  };
}

// A document that is there but does not parse is reported, not thrown: the rest still reads.
function parse<T>(
  text: string | null | undefined,
  file: string,
  parser: (text: string) => T | null,
  problems: Problem[],
): T | null {
  if (text === null || text === undefined) return null;
  try {
    const value = parser(text);
    if (value !== null) return value;
  } catch {
    // reported below
  }
  problems.push(`unparseable:${file}`);
  return null;
}

async function readAt(
  handle: FileHandle,
  position: number,
  length: number,
  diskSize = Number.POSITIVE_INFINITY,
): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, Math.min(length, diskSize - position)));
  if (buffer.length === 0 || position < 0) return Buffer.alloc(0);
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
  return buffer.subarray(0, bytesRead);
}
