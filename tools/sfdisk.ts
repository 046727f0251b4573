// sfdisk(8): writes GPT partition tables, on block devices and image files alike.
import { run } from "./exec.ts";

export interface TableEntry {
  readonly start: number;
  readonly size: number;
  readonly typeGuid: string;
  readonly uuid: string;
  readonly name: string;
}

/** Writes a new GPT with exactly these entries (byte offsets, whole sectors). */
export async function writeGpt(
  path: string,
  table: {
    readonly id: string;
    readonly sectorSize: number;
    readonly entries: readonly TableEntry[];
  },
): Promise<void> {
  const sector = (bytes: number) => {
    if (bytes % table.sectorSize !== 0)
      throw new RangeError(`${bytes} is not a whole number of ${table.sectorSize}-byte sectors`);
    return bytes / table.sectorSize;
  };
  const script = [
    "label: gpt",
    `label-id: ${table.id}`,
    `sector-size: ${table.sectorSize}`,
    ...table.entries.map(
      (e) =>
        `start=${sector(e.start)}, size=${sector(e.size)}, type=${e.typeGuid}, uuid=${e.uuid}, name="${e.name}"`,
    ),
    "",
  ].join("\n");
  await run(
    "sfdisk",
    [
      "--quiet",
      "--no-reread", // the installer holds the disk open exclusively; the kernel learns the table later
      "--no-tell-kernel",
      "--wipe=never", // a blank disk has nothing to wipe, and a liken disk was erased before
      path,
    ],
    { input: script, timeoutMs: 60_000 },
  );
}
