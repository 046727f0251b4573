// The liken claim: the proof that liken wrote a disk. Every disk an install writes carries
// it, system and storage disks alike, so it lives outside any partition: one copy in the gap
// between the primary GPT and the first partition, one in the last MiB before the backup
// GPT. Each copy is one 512-byte sector, so a torn write loses at most that copy; the copy
// with the higher generation wins. docs/install.md documents the format byte by byte.
import { crc32 } from "node:zlib";
import { MIB } from "../common/size.ts";
import { rfc3339FromSeconds } from "../common/time.ts";

export const CLAIM_SIZE = 512;
const MAGIC = "LIKENCLM";
const FORMAT_VERSION = 1;
const TEXT_FIELD = 64;
const FLAG_COMPLETE = 1;
/** A mirror's members: the only count liken writes. */
const MIRROR_MEMBERS = 2;
/** ECMAScript's last time, in seconds. */
const MAX_DATE_SECONDS = 8.64e12;

export type DiskUse = "system" | "storage";

/** A member of a mirrored system disk: where it sits in the mirror, and the disk beside it. */
export interface ClaimMirror {
  /** This disk's place in the mirror: 1 or 2. */
  readonly member: 1 | 2;
  /** The other member as the install saw it: its serial and WWN where it has them, else its path. */
  readonly peer: { readonly serial?: string; readonly wwn?: string; readonly path?: string };
}

export interface Claim {
  readonly cluster: string;
  readonly machine: string;
  /** A UUID shared by every disk of one install. */
  readonly installId: string;
  /** The release being installed (partial) or installed (complete). */
  readonly release: string;
  readonly use: DiskUse;
  /** Set last, when everything else is written and verified. */
  readonly complete: boolean;
  /** When the install started, seconds since the epoch. */
  readonly createdAt: number;
  /** Counts writes; the copy with the higher generation is the current one. */
  readonly generation: number;
  /** Present on the two disks of a mirrored system disk only. */
  readonly mirror?: ClaimMirror;
}

/** Byte offset of the head copy: past the GPT entries even on 4K-sector disks, before 1 MiB. */
export const CLAIM_HEAD_OFFSET = 512 * 1024;

/** Byte offset of the tail copy: inside the last whole MiB, before the backup GPT. */
export function claimTailOffset(diskSize: number): number {
  return Math.floor(diskSize / MIB) * MIB - MIB / 2;
}

export function encodeClaim(claim: Claim): Buffer {
  const b = Buffer.alloc(CLAIM_SIZE);
  b.write(MAGIC, 0, "ascii");
  b.writeUInt32LE(FORMAT_VERSION, 8);
  b.writeUInt32LE(claim.complete ? FLAG_COMPLETE : 0, 12);
  Buffer.from(claim.installId.replaceAll("-", ""), "hex").copy(b, 16);
  b.writeUInt8(claim.use === "system" ? 1 : 2, 32);
  b.writeBigUInt64LE(BigInt(claim.generation), 40);
  writeText(b, 48, claim.cluster);
  writeText(b, 112, claim.machine);
  writeText(b, 176, claim.release);
  b.writeBigUInt64LE(BigInt(claim.createdAt), 240);
  if (claim.mirror) {
    b.writeUInt8(claim.mirror.member, 33);
    b.writeUInt8(MIRROR_MEMBERS, 34);
    writeText(b, 256, claim.mirror.peer.serial ?? "");
    writeText(b, 320, claim.mirror.peer.wwn ?? "");
    writeText(b, 384, claim.mirror.peer.path ?? "");
  }
  b.writeUInt32LE(crc32(b.subarray(0, CLAIM_SIZE - 4)), CLAIM_SIZE - 4);
  return b;
}

/** The claim in one 512-byte copy, or undefined when magic, version or checksum fail. */
export function decodeClaim(b: Uint8Array): Claim | undefined {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (buf.length < CLAIM_SIZE || buf.toString("ascii", 0, 8) !== MAGIC) return undefined;
  if (buf.readUInt32LE(8) !== FORMAT_VERSION) return undefined;
  if (crc32(buf.subarray(0, CLAIM_SIZE - 4)) !== buf.readUInt32LE(CLAIM_SIZE - 4)) return undefined;
  const use = buf.readUInt8(32);
  if (use !== 1 && use !== 2) return undefined;
  // A start time past what a Date holds (year 275760) is not one liken wrote, and showing
  // it would throw (found by claim.fuzz.test.ts).
  const createdAt = Number(buf.readBigUInt64LE(240));
  if (createdAt > MAX_DATE_SECONDS) return undefined;
  const member = buf.readUInt8(33);
  // Byte 33 is 0 on every claim but a mirror member's; a member numbered otherwise, or of
  // a mirror of other than two disks, is not one liken wrote.
  if (member !== 0 && !((member === 1 || member === 2) && buf.readUInt8(34) === MIRROR_MEMBERS))
    return undefined;
  return {
    cluster: readText(buf, 48),
    machine: readText(buf, 112),
    installId: uuidAt(buf, 16),
    release: readText(buf, 176),
    use: use === 1 ? "system" : "storage",
    complete: (buf.readUInt32LE(12) & FLAG_COMPLETE) !== 0,
    createdAt,
    generation: Number(buf.readBigUInt64LE(40)),
    ...(member === 1 || member === 2 ? { mirror: { member, peer: peerAt(buf) } } : {}),
  };
}

// An empty field is a fact the install did not have (a disk without a WWN): left out.
function peerAt(buf: Buffer): ClaimMirror["peer"] {
  const [serial, wwn, path] = [256, 320, 384].map((at) => readText(buf, at));
  return { ...(serial ? { serial } : {}), ...(wwn ? { wwn } : {}), ...(path ? { path } : {}) };
}

export type ClaimVerdict =
  | { readonly state: "none" }
  | { readonly state: "valid"; readonly claim: Claim; readonly copies: 1 | 2 }
  /** Both copies verify but name different installs: not a state liken ever writes. */
  | { readonly state: "conflict" };

/** Decides what the two copies of a disk say together. */
export function judgeClaim(head: Uint8Array, tail: Uint8Array): ClaimVerdict {
  const a = decodeClaim(head);
  const b = decodeClaim(tail);
  if (!a && !b) return { state: "none" };
  if (a && b) {
    if (a.installId !== b.installId || a.cluster !== b.cluster || a.machine !== b.machine) {
      return { state: "conflict" };
    }
    return { state: "valid", claim: a.generation >= b.generation ? a : b, copies: 2 };
  }
  return { state: "valid", claim: (a ?? b) as Claim, copies: 1 };
}

function writeText(b: Buffer, offset: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length > TEXT_FIELD - 1)
    throw new RangeError(`claim field "${text}" is longer than ${TEXT_FIELD - 1} bytes`);
  b.writeUInt8(bytes.length, offset);
  bytes.copy(b, offset + 1);
}

function readText(b: Buffer, offset: number): string {
  const length = Math.min(b.readUInt8(offset), TEXT_FIELD - 1);
  return b.toString("utf8", offset + 1, offset + 1 + length);
}

/** The UUID stored as 16 bytes in text order at `at` (the claim's and the journal's install id). */
export function uuidAt(b: Buffer, at: number): string {
  const hex = b.toString("hex", at, at + 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A mirror member's place as `disks --json` and `inspect --json` show it. */
export interface ClaimMirrorSummary {
  readonly member: 1 | 2;
  readonly of: 2;
  readonly peer: ClaimMirror["peer"];
}

/** The claim as `disks --json` and `inspect --json` show it. */
export function summarizeClaim(claim: Claim) {
  const mirror: ClaimMirrorSummary | undefined = claim.mirror && {
    member: claim.mirror.member,
    of: MIRROR_MEMBERS,
    peer: { ...claim.mirror.peer },
  };
  return {
    cluster: claim.cluster,
    machine: claim.machine,
    installId: claim.installId,
    release: claim.release,
    use: claim.use,
    complete: claim.complete,
    createdAt: rfc3339FromSeconds(claim.createdAt),
    ...(mirror ? { mirror } : {}),
  };
}
