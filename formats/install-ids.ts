// The GUIDs an install writes into each disk's GPT, derived from the install id: a resumed
// install writes the same table, and the classifier can tell a table liken wrote from one
// written over it later (hardware/disks/claim-holds.ts). Changing a name here makes every
// installed disk read `liken-claim:stale`.
import { createHash } from "node:crypto";

/** At most this many disks in one install (the classifier searches the table id among them). */
export const MAX_INSTALL_DISKS = 64;

/** The GPT disk GUID of the install's disk number `index` (0 for the system disk). */
export function tableIdFor(installId: string, index: number): string {
  return derivedUuid(installId, `disk${index}:table`);
}

/** The PARTUUID of the partition named `label` on the install's disk number `index`. */
export function partitionUuidFor(installId: string, index: number, label: string): string {
  return derivedUuid(installId, `disk${index}:${label}`);
}

/** The disk number whose table id is `diskGuid` in this install, if any. */
export function diskIndexOf(installId: string, diskGuid: string): number | undefined {
  for (let i = 0; i < MAX_INSTALL_DISKS; i++) {
    if (tableIdFor(installId, i) === diskGuid.toUpperCase()) return i;
  }
  return undefined;
}

// RFC 9562 version 8 (name-based, SHA-256): unique per install, stable across retries.
function derivedUuid(installId: string, name: string): string {
  const h = createHash("sha256").update(`${installId}\0${name}`).digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x80;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex").toUpperCase();
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
