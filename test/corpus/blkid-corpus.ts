// util-linux's blkid test images as disks for the classifier: the file-system, RAID,
// crypto and volume-manager images (images-fs/) and the partition tables (images-pt/) of
// util-linux's tests/ts/blkid, each one real data that must never be called `blank`.
// Two sets are read, each from a folder of images-fs/*.img.xz and images-pt/*.img.xz:
// - util-linux 2.38.1 (116 images), from Debian 12's util-linux source package, pinned in
//   test/corpus/util-linux.lock.json and fetched into the liken cache by
//   ./util-linux-source.ts: every checkout has it.
// - a newer util-linux (138 images), read from ../shared/corpus/util-linux-blkid (see its
//   README) when that folder exists (LIKEN_EXTRA_BLKID_CORPUS names another folder).
//
// Each image gives up to four disks, all sparse files in the scratch directory:
// - `<kind>-<image>-raw`: the image as it is. Every image is far below MIN_DISK_BYTES, so
//   it is `too-small`, and the classifier may call it `ineligible` or `foreign`.
// - `<kind>-<image>-head`: the image at offset 0 of a larger zero-filled disk (DISK_BYTES).
// - `<kind>-<image>-at1m`: the image at 1 MiB of one, where a partition whose table was
//   zapped starts: made for every image, since none may ever read blank there.
// - `<kind>-<image>-tail`: the image at the end of one (the disk's last byte is the image's).
// A head or tail disk is made only when a region the classifier reads (the first 16 MiB,
// the sample windows, the last MiB: hardware/disks/probe.ts) holds a non-zero byte of the
// image, or (head) wipefs finds a signature on it: otherwise its data sits where nothing
// that reads a fixed budget of a disk can see it.
//
// The images are read from their folder at build time and never copied into the project.
import { chmod, copyFile, type FileHandle, mkdir, open, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "../../tools/exec.ts";
import {
  type ByteRange,
  blkidTypeAt,
  type CorpusCase,
  DISK_BYTES,
  hexOffset,
  isAllZero,
  MIN_DISK_BYTES,
  MiB,
  mapLimit,
  NonzeroTracker,
  nonzeroReasons,
} from "./disk-corpus.ts";

/** ../shared/corpus/util-linux-blkid, resolved from this file (repo root/../shared). */
export const SHARED_BLKID_IMAGES_DIR = fileURLToPath(
  new URL("../../../shared/corpus/util-linux-blkid/", import.meta.url),
);

/**
 * The newer images, used in addition to the pinned ones when the folder exists:
 * $LIKEN_EXTRA_BLKID_CORPUS when set, else ../shared/corpus/util-linux-blkid.
 */
export const EXTRA_BLKID_IMAGES_DIR =
  process.env.LIKEN_EXTRA_BLKID_CORPUS || SHARED_BLKID_IMAGES_DIR;

const KINDS = ["fs", "pt"] as const;
const BLOCK = 64 * 1024; // granularity of the sparse copies
const READ = 4 * MiB;

export interface BlkidImage {
  readonly kind: (typeof KINDS)[number];
  /** The image's file name without `.img.xz`, e.g. "ext4". */
  readonly image: string;
  /** The decompressed image (sparse). */
  readonly raw: string;
  readonly size: number;
}

/** The compressed images of `imagesDir`, kind by kind, sorted by name. */
export async function listBlkidImages(
  imagesDir: string,
): Promise<{ kind: "fs" | "pt"; image: string; xz: string }[]> {
  const out: { kind: "fs" | "pt"; image: string; xz: string }[] = [];
  for (const kind of KINDS) {
    const folder = join(imagesDir, `images-${kind}`);
    const names = (await readdir(folder)).filter((n) => n.endsWith(".img.xz")).sort();
    for (const n of names)
      out.push({ kind, image: n.slice(0, -".img.xz".length), xz: join(folder, n) });
  }
  return out;
}

/**
 * Builds the blkid corpus of the images in `imagesDir` (images-fs/, images-pt/) in `dir`
 * (created; the caller removes it). Takes 6-11 s for the 138 newer images on 2 cores:
 * most of it is xz. Every case expects a non-blank verdict: `foreign` for the disks
 * of DISK_BYTES, `foreign` or `ineligible` for the raw images (too small). Reasons are a
 * lower bound: `too-small` for the raw images, and `nonzero-data:head` / `:middle` / `:tail`
 * exactly when the disk's first 16 MiB / sample windows / last MiB hold a non-zero byte.
 * Signatures vary with the util-linux version (2.38 does not see bcachefs, scoutfs,
 * cs_fvault2, bsd or dasd), so none are listed, except on a head disk whose regions are all
 * zeros: it is kept because wipefs finds a signature further in, listed as
 * `signature:<TYPE>@*`.
 */
export async function buildBlkidCorpus(imagesDir: string, dir: string): Promise<CorpusCase[]> {
  const images = await decompressAll(imagesDir, dir);
  const cases: CorpusCase[] = [];
  const disks = join(dir, "disks");
  await mkdir(disks, { recursive: true });
  const built = await mapLimit(images, 2, (img) => placeImage(img, disks));
  for (const { img, raw, placed } of built) {
    const name = `${img.kind}-${img.image}`;
    cases.push({
      name: `${name}-raw`,
      path: img.raw,
      expect: img.size < MIN_DISK_BYTES ? ["foreign", "ineligible"] : "foreign",
      reasons: [...(img.size < MIN_DISK_BYTES ? ["too-small"] : []), ...raw],
      needsRoot: false,
    });
    for (const disk of placed) {
      cases.push({
        name: `${name}-${disk.variant}`,
        path: disk.path,
        expect: "foreign",
        reasons: disk.reasons,
        needsRoot: false,
        ...(disk.placed ? { placed: disk.placed } : {}),
      });
    }
  }
  return cases;
}

/**
 * Copies the .xz files into `dir/raw` and decompresses them there with two xz processes
 * (2 cores), the images shared out by uncompressed size. xz writes sparse files.
 */
async function decompressAll(imagesDir: string, dir: string): Promise<BlkidImage[]> {
  const list = await listBlkidImages(imagesDir);
  if (list.length === 0) throw new Error(`no images in ${imagesDir}`);
  const rawDir = join(dir, "raw");
  await rm(rawDir, { recursive: true, force: true });
  await mkdir(rawDir, { recursive: true });
  const xzFiles = await Promise.all(
    list.map(async (e) => {
      const to = join(rawDir, `${e.kind}-${e.image}.img.xz`);
      await copyFile(e.xz, to);
      return to;
    }),
  );
  const sizes = await uncompressedSizes(xzFiles);
  const bins: { files: string[]; bytes: number }[] = [
    { files: [], bytes: 0 },
    { files: [], bytes: 0 },
  ];
  for (const f of [...xzFiles].sort((a, b) => (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0))) {
    const bin = bins[0]!.bytes <= bins[1]!.bytes ? bins[0]! : bins[1]!;
    bin.files.push(f);
    bin.bytes += sizes.get(f) ?? 0;
  }
  await Promise.all(
    bins
      .filter((b) => b.files.length > 0)
      .map((b) => run("xz", ["--decompress", "--threads=1", ...b.files], { timeoutMs: 120_000 })),
  );
  return Promise.all(
    list.map(async (e) => {
      const raw = join(rawDir, `${e.kind}-${e.image}.img`);
      // xz keeps the mode of the read-only originals: a disk we cannot write could read
      // as `read-only` to a classifier that is not root.
      await chmod(raw, 0o644);
      return { kind: e.kind, image: e.image, raw, size: (await stat(raw)).size };
    }),
  );
}

/** `xz --robot --list`: the uncompressed size of each file. */
async function uncompressedSizes(files: readonly string[]): Promise<Map<string, number>> {
  const { stdout } = await run("xz", ["--robot", "--list", ...files]);
  const sizes = new Map<string, number>();
  let current: string | undefined;
  for (const line of stdout.split("\n")) {
    const cols = line.split("\t");
    if (cols[0] === "name") current = cols[1];
    else if (cols[0] === "file" && current !== undefined) sizes.set(current, Number(cols[4]));
  }
  return sizes;
}

/**
 * Makes the head, at1m and tail disks in one pass over the image, writing only its
 * non-zero 64 KiB blocks, so all stay sparse, and notes which regions of each disk (and of
 * the raw image) the written blocks reach: exact, without reading a disk back. A head disk
 * whose regions are all zeros is kept only when wipefs still finds a signature on it
 * (vmfs_volume: its magic is at 1 MiB); its reasons then name those signature types. A tail
 * disk whose regions are all zeros is not kept.
 */
async function placeImage(img: BlkidImage, disks: string): Promise<Placed> {
  const diskBytes = Math.max(DISK_BYTES, Math.ceil((img.size + 2 * MiB) / MiB) * MiB);
  const base = join(disks, `${img.kind}-${img.image}`);
  const outs = (
    [
      ["head", 0],
      ["at1m", MiB],
      ["tail", diskBytes - img.size],
    ] as const
  ).map(([variant, shift]) => ({
    variant,
    path: `${base}-${variant}.img`,
    shift,
    found: new NonzeroTracker(diskBytes),
  }));
  const raw = new NonzeroTracker(img.size);
  const src = await open(img.raw, "r");
  const dsts: FileHandle[] = [];
  try {
    for (const o of outs) dsts.push(await open(o.path, "w"));
    const buf = Buffer.alloc(READ);
    for (let pos = 0; pos < img.size; pos += READ) {
      const want = Math.min(READ, img.size - pos);
      const { bytesRead } = await src.read(buf, 0, want, pos);
      if (bytesRead !== want) throw new Error(`short read of ${img.raw}`);
      for (let off = 0; off < want; off += BLOCK) {
        const block = buf.subarray(off, Math.min(off + BLOCK, want));
        if (isAllZero(block)) continue;
        raw.add(pos + off, block);
        for (const [i, o] of outs.entries()) {
          await dsts[i]!.write(block, 0, block.length, o.shift + pos + off);
          o.found.add(o.shift + pos + off, block);
        }
      }
    }
    for (const fh of dsts) await fh.truncate(diskBytes);
  } finally {
    await src.close();
    await Promise.all(dsts.map((fh) => fh.close()));
  }
  const placed: Placed["placed"][number][] = [];
  for (const o of outs) {
    const reasons = nonzeroReasons(o.found.result);
    if (o.variant === "at1m") {
      // Where a partition whose table was zapped starts. When the image's data lies
      // nowhere the classifier reads, only blkid at 1 MiB can name it, given the image's
      // size as a partition's (the table that held it is gone): that is the reason then.
      const range = { start: MiB, end: MiB + img.size };
      const type =
        reasons.length === 0 ? await blkidTypeAt(o.path, range.start, img.size) : undefined;
      placed.push({
        variant: o.variant,
        path: o.path,
        reasons: type ? [`signature:${type}@${hexOffset(MiB)}`] : reasons,
        placed: range,
      });
      continue;
    }
    if (reasons.length > 0) {
      placed.push({ variant: o.variant, path: o.path, reasons });
      continue;
    }
    const types = o.variant === "head" ? await wipefsTypes(o.path) : [];
    if (types.length > 0)
      placed.push({
        variant: o.variant,
        path: o.path,
        reasons: types.map((t) => `signature:${t}@*`),
      });
    else await rm(o.path);
  }
  return { img, raw: nonzeroReasons(raw.result), placed };
}

interface Placed {
  readonly img: BlkidImage;
  /** The raw image's `nonzero-data:` reasons. */
  readonly raw: string[];
  readonly placed: {
    readonly variant: "head" | "at1m" | "tail";
    readonly path: string;
    readonly reasons: string[];
    readonly placed?: ByteRange;
  }[];
}

/** The distinct signature types wipefs finds on a disk. */
async function wipefsTypes(path: string): Promise<string[]> {
  const { stdout } = await run("wipefs", ["--no-act", "--json", "--output", "TYPE", path]);
  if (stdout.trim() === "") return [];
  const parsed = JSON.parse(stdout) as { signatures?: { type: string }[] };
  return [...new Set((parsed.signatures ?? []).map((s) => s.type))];
}
