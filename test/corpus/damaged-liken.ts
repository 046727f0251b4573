// A liken disk as the real installer writes it, for the damaged-disk corpus to damage
// (test/corpus/damaged-disks.ts): `install` of small.toml's leader-1 with a test release on
// a sparse image file, once; each damaged disk is a sparse copy of it with a few bytes
// changed. The journal is the 64 MiB of examples/cluster.toml, not small.toml's 8 MiB: how
// long a damaged journal takes to read grows with its size, and 64 MiB is what machines have.
import { open, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GIB } from "../../common/size.ts";
import { CLAIM_HEAD_OFFSET, CLAIM_SIZE, decodeClaim } from "../../formats/claim.ts";
import { type GptEntry, parseGpt } from "../../formats/gpt.ts";
import { run } from "../../tools/exec.ts";
import { cli } from "../cli.ts";
import { sparseFile } from "../disk-files.ts";
import { makeTestRelease } from "../release-fixture.ts";
import { ARRAY_BYTES, type Gpt, gptOf, SECTOR } from "./damaged-tables.ts";

export const INSTALLED_SIZE = 4 * GIB;
const MANIFEST = "test/fixtures/manifests/good/small.toml";
/** The table sfdisk writes: PMBR, header and 128 entries at the start; entries and header at the end. */
const HEAD_BYTES = 2 * SECTOR + ARRAY_BYTES;
const TAIL_BYTES = ARRAY_BYTES + SECTOR;

export interface InstalledDisk {
  readonly path: string;
  readonly installId: string;
  readonly partitions: readonly GptEntry[];
  /** Its GPT as sfdisk wrote it, a fresh copy on each call to change. */
  gpt(): Gpt;
}

/** Installs leader-1 once on a sparse image in `dir` (a few seconds) and reads back what it wrote. */
export async function installedDisk(dir: string): Promise<InstalledDisk> {
  const release = await makeTestRelease(join(dir, "release-1.0.0"), { version: "1.0.0" });
  const manifest = join(dir, "cluster.toml");
  const text = await readFile(MANIFEST, "utf8");
  await writeFile(manifest, text.replace('crash_journal = "8MiB"', 'crash_journal = "64MiB"'));
  const path = await sparseFile(join(dir, "installed.img"), INSTALLED_SIZE);
  const r = await cli([
    "install",
    ...["--manifest", manifest, "--as", "leader-1", "--release", release],
    ...["--status-file", join(dir, "install-status.json"), path],
  ]);
  if (r.code !== 0) throw new Error(`the install on ${path} failed (${r.code}): ${r.stderr}`);
  const handle = await open(path, "r");
  try {
    const at = async (position: number, length: number) => {
      const b = Buffer.alloc(length);
      await handle.read(b, 0, length, position);
      return b;
    };
    const head = await at(0, HEAD_BYTES);
    const tail = await at(INSTALLED_SIZE - TAIL_BYTES, TAIL_BYTES);
    const claim = decodeClaim(await at(CLAIM_HEAD_OFFSET, CLAIM_SIZE));
    const partitions = parseGpt(head, [SECTOR])?.entries;
    if (!claim || !partitions) throw new Error(`${path}: the install wrote no claim or no GPT`);
    return {
      path,
      installId: claim.installId,
      partitions,
      gpt: () => gptOf(Buffer.from(head), Buffer.from(tail), INSTALLED_SIZE),
    };
  } finally {
    await handle.close();
  }
}

/** The installed partition labelled `label`. */
export function partition(disk: InstalledDisk, label: string): GptEntry {
  const p = disk.partitions.find((e) => e.name === label);
  if (!p) throw new Error(`the installed disk has no ${label}`);
  return p;
}

/** A sparse copy of the installed disk: its holes stay holes. */
export async function copyOf(disk: InstalledDisk, path: string): Promise<string> {
  await run("cp", ["--sparse=always", disk.path, path]);
  return path;
}
