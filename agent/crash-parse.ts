// Turns the files the kernel's pstore shows in /sys/fs/pstore (efi-pstore: one file per part
// of a dump, `dmesg-efi-<id>`, each starting with a line such as "Panic#1 Part1") into crash
// records. Part1 holds the newest bytes of the log, so a dump reads from its highest part
// down to Part1. Pure: the agent reads the files, this decides what they say.
import { createHash } from "node:crypto";
import { rfc3339 } from "../common/time.ts";
import { MAX_PAYLOAD } from "../formats/journal-records.ts";
import type { CrashRecord, Slot } from "./types.ts";

export interface PstoreFile {
  readonly name: string;
  readonly text: string;
  readonly mtimeMs: number;
}

/** The line the agent writes to the kernel log early in every boot, so a crash names its boot. */
export function bootMarker(bootId: string, release: string, slot: Slot, trial: boolean): string {
  return `liken: boot ${bootId} release ${release} slot ${slot}${trial ? " trial" : ""}`;
}
const MARKER = /liken: boot ([0-9a-f-]{36}) release (\S+) slot ([ab])/;
const HEADER = /^(\w+)#(\d+) Part(\d+)$/;
const PANIC = "Kernel panic - not syncing";
const BEFORE = 40;
/** The kernel's longest log line (LOG_LINE_MAX) and a reason word's sensible length. */
const MAX_LINE = 1024;
const MAX_KIND = 64;
const AFTER = 30;

interface Part {
  readonly kind: string;
  readonly count: number;
  readonly part: number;
  readonly body: string;
  readonly mtimeMs: number;
}

export function crashesFromPstore(files: readonly PstoreFile[]): CrashRecord[] {
  const parts: Part[] = [];
  for (const f of files) {
    if (!f.name.startsWith("dmesg-")) continue;
    const newline = f.text.indexOf("\n");
    const header = HEADER.exec((newline < 0 ? f.text : f.text.slice(0, newline)).trim());
    if (!header) continue;
    parts.push({
      kind: header[1] as string,
      count: Number(header[2]),
      part: Number(header[3]),
      body: newline < 0 ? "" : f.text.slice(newline + 1),
      mtimeMs: f.mtimeMs,
    });
  }
  return groupDumps(parts).map(toRecord);
}

// Parts of one dump share kind, count and (within seconds) time; a part number seen twice
// starts another dump.
function groupDumps(parts: readonly Part[]): Part[][] {
  const sorted = [...parts].sort(
    (x, y) => x.mtimeMs - y.mtimeMs || x.kind.localeCompare(y.kind) || x.count - y.count,
  );
  const dumps: Part[][] = [];
  for (const p of sorted) {
    const dump = dumps.find(
      (d) =>
        d[0]?.kind === p.kind &&
        d[0]?.count === p.count &&
        Math.abs((d[0]?.mtimeMs ?? 0) - p.mtimeMs) < 10_000 &&
        !d.some((q) => q.part === p.part),
    );
    if (dump) dump.push(p);
    else dumps.push([p]);
  }
  return dumps;
}

function toRecord(dump: Part[]): CrashRecord {
  const ordered = [...dump].sort((x, y) => y.part - x.part);
  const text = ordered.map((p) => p.body).join("");
  const all = text
    .split("\n")
    .map((l) => l.replace(/^<\d+>/, "").trimEnd())
    .filter((l) => l.length > 0);
  const panicAt = all.findLastIndex((l) => l.includes(PANIC));
  const lines =
    panicAt < 0
      ? all.slice(-(BEFORE + AFTER))
      : all.slice(Math.max(0, panicAt - BEFORE), panicAt + 1 + AFTER);
  const marker = all.findLast((l) => MARKER.test(l));
  const m = marker ? MARKER.exec(marker) : null;
  const first = ordered[0] as Part;
  const record: CrashRecord = {
    id: createHash("sha256").update(text).digest("hex").slice(0, 16),
    time: rfc3339(new Date(Math.min(...dump.map((p) => p.mtimeMs)))),
    bootId: m?.[1] ?? "",
    release: m?.[2] ?? null,
    slot: (m?.[3] as Slot | undefined) ?? null,
    kind: first.kind.slice(0, MAX_KIND),
    lines: lines.map((l) => l.slice(0, MAX_LINE)),
  };
  return fitted(record);
}

// A record the journal's readers skip as damaged (a payload past MAX_PAYLOAD) would be
// appended again at every boot, and pstore cleared each time: the crash lost. pstore's files
// are the firmware's variables, so any length reaches here (70 lines of 4 KiB control
// characters made 270 KB of JSON: crash-parse.fuzz.test.ts). Lines are clipped to the
// kernel's longest, then the oldest go until the record fits.
function fitted(record: CrashRecord): CrashRecord {
  let lines = record.lines;
  const size = () => Buffer.byteLength(JSON.stringify({ ...record, lines }));
  while (lines.length > 0 && size() > MAX_PAYLOAD) lines = lines.slice(1);
  return { ...record, lines };
}
