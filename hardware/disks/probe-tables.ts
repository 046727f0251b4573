// The partition tables the probe read, judged before any tool is pointed at the disk: the
// primary and backup GPT, the MBR and its chain of logical partitions. A table that breaks
// a rule (formats/gpt.ts, formats/mbr.ts) is named in `implausible`, and its partitions are
// not probed: only what sane tables name is shown to blkid.
import { type Gpt, judgeBackupGpt, judgeGpt } from "../../formats/gpt.ts";
import { judgeMbr, logicalPartitions, type MbrPartition } from "../../formats/mbr.ts";
import type { DiskFacts } from "./types.ts";

// Flaws libblkid checks before it reads the entry array, so a header with one of them costs
// it nothing (get_gpt_header() in libblkid/src/partitions/gpt.c, util-linux 2.38).
const UNREAD = new Set(["header-size", "header-crc", "header-lba", "usable-range", "entry-size"]);

export interface Tables {
  readonly gpt?: Gpt;
  readonly backupGpt?: Gpt;
  /** The MBR's partitions, logical ones included. */
  readonly mbr: readonly MbrPartition[];
  /** Each table that broke a rule, and which: "gpt:entry-count", "mbr:chain-loop". */
  readonly implausible: readonly string[];
  /**
   * Whether libblkid would follow a GPT header that breaks a rule: it reads any entry
   * array whose header's CRC verifies, however large and wherever it lies.
   */
  readonly gptUnbounded: boolean;
}

/**
 * The tables in `head` (the disk's first bytes) and `end` (its last), reading an EBR that
 * lies past the head through `readSector`.
 */
export async function readTables(
  facts: Pick<DiskFacts, "size" | "logicalSectorSize">,
  head: Buffer,
  end: Buffer,
  readSector: (offset: number) => Promise<Uint8Array | undefined>,
): Promise<Tables> {
  const s = facts.logicalSectorSize;
  const implausible: string[] = [];
  const gpt = judgeGpt(head, [s], facts.size);
  const backup = judgeBackupGpt(end, facts.size, [s]);
  if (gpt.state === "implausible") implausible.push(`gpt:${gpt.flaw}`);
  if (backup.state === "implausible") implausible.push(`backup-gpt:${backup.flaw}`);
  const mbr = judgeMbr(head, s);
  if (mbr.state === "implausible") implausible.push(`mbr:${mbr.flaw}`);
  let partitions = mbr.state === "valid" ? mbr.partitions : [];
  if (mbr.state === "valid" && mbr.extended) {
    const logical = await logicalPartitions(mbr.extended, s, (offset) =>
      offset + s <= head.length
        ? Promise.resolve(head.subarray(offset, offset + s))
        : readSector(offset),
    );
    if ("flaw" in logical) implausible.push(`mbr:${logical.flaw}`);
    else partitions = [...partitions, ...logical];
  }
  return {
    ...(gpt.state === "valid" ? { gpt: gpt.gpt } : {}),
    ...(backup.state === "valid" ? { backupGpt: backup.gpt } : {}),
    mbr: partitions,
    implausible,
    gptUnbounded: [gpt, backup].some((v) => v.state === "implausible" && !UNREAD.has(v.flaw)),
  };
}
