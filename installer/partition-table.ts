// Writes a disk's GPT: sfdisk for block devices and 512-byte image files, the project's own
// encoder for an image file of 4096-byte sectors (sfdisk 2.38 lays out a file in 512-byte
// sectors only, formats/gpt-encode.ts). The install and the mirror's repair write with it.
import type { FileHandle } from "node:fs/promises";
import { encodeGpt } from "../formats/gpt-encode.ts";
import { type TableEntry, writeGpt } from "../tools/sfdisk.ts";

export interface TableTarget {
  readonly path: string;
  readonly kind: "block" | "file";
  readonly size: number;
  readonly sectorSize: number;
  /** The GPT's disk GUID. */
  readonly tableId: string;
}

export async function writeTable(
  file: FileHandle,
  target: TableTarget,
  entries: readonly TableEntry[],
): Promise<void> {
  await file.sync();
  if (target.kind === "file" && target.sectorSize !== 512) {
    const gpt = encodeGpt({
      diskSize: target.size,
      sectorSize: target.sectorSize,
      diskGuid: target.tableId,
      entries,
    });
    await file.write(gpt.head, 0, gpt.head.length, 0);
    await file.write(gpt.tail, 0, gpt.tail.length, gpt.tailOffset);
    await file.sync();
  } else
    await writeGpt(target.path, { id: target.tableId, sectorSize: target.sectorSize, entries });
}
