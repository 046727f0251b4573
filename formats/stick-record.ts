// What an unattended stick installed, kept on its own payload partition (installed.json):
// one entry per install id. A stick that boots again finds its install id on a disk of the
// machine and writes nothing; removing the file (or writing the stick again) forgets it.
import { LikenError } from "../common/errors.ts";

export const STICK_RECORD_KIND = "LikenStickInstalls";

export interface RecordedInstall {
  readonly installId: string;
  readonly cluster: string;
  readonly machine: string;
  readonly release: string;
  /** RFC 3339, UTC. */
  readonly installedAt: string;
  /** The system disk as the machine named it, so a person can find it again. */
  readonly systemDisk: {
    readonly path: string;
    readonly serial: string | null;
    readonly wwn: string | null;
  };
}

export interface StickRecord {
  readonly kind: typeof STICK_RECORD_KIND;
  readonly version: 1;
  readonly installs: readonly RecordedInstall[];
}

export const EMPTY_STICK_RECORD: StickRecord = {
  kind: STICK_RECORD_KIND,
  version: 1,
  installs: [],
};

/** The record in `text`; a LikenError naming `file` when it is not one. */
export function parseStickRecord(text: string, file: string): StickRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Text that is not JSON is checked below like any other wrong record.
    value = undefined;
  }
  const record = value as Partial<StickRecord> | undefined;
  const installs = record?.installs;
  if (
    record?.kind !== STICK_RECORD_KIND ||
    record.version !== 1 ||
    !Array.isArray(installs) ||
    !installs.every(isRecordedInstall)
  ) {
    throw new LikenError({
      kind: "refused",
      what: `${file} is not a record of liken installs, so the stick cannot tell what it installed`,
      hint: `delete ${file} to let the stick install again, or write the stick again`,
    });
  }
  return { kind: STICK_RECORD_KIND, version: 1, installs };
}

export function encodeStickRecord(record: StickRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** The record with `install` in it, replacing an entry of the same install id. */
export function withInstall(record: StickRecord, install: RecordedInstall): StickRecord {
  return {
    ...record,
    installs: [...record.installs.filter((i) => i.installId !== install.installId), install],
  };
}

/** Whether the stick installed `installId` (install ids compare case-insensitively). */
export function recordsInstall(record: StickRecord, installId: string): boolean {
  return record.installs.some((i) => i.installId.toLowerCase() === installId.toLowerCase());
}

function isRecordedInstall(value: unknown): value is RecordedInstall {
  const v = value as Partial<RecordedInstall> | null;
  const text = (x: unknown) => typeof x === "string" && x !== "";
  const nullableText = (x: unknown) => x === null || typeof x === "string";
  return (
    typeof v === "object" &&
    v !== null &&
    text(v.installId) &&
    text(v.cluster) &&
    text(v.machine) &&
    text(v.release) &&
    text(v.installedAt) &&
    typeof v.systemDisk === "object" &&
    v.systemDisk !== null &&
    text(v.systemDisk.path) &&
    nullableText(v.systemDisk.serial) &&
    nullableText(v.systemDisk.wwn)
  );
}
