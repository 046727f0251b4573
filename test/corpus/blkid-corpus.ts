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
// Each image gives up to three disks, all sparse files in the scratch directory:
// - `<kind>-<image>-raw`: the image as it is. Every image is far below MIN_DISK_BYTES, so
//   it is `too-small`, and the classifier may call it `ineligible` or `foreign`.
// - `<kind>-<image>-head`: the image at offset 0 of a larger zero-filled disk (DISK_BYTES).
// - `<kind>-<image>-tail`: the image at the end of one (the disk's last byte is the image's).
// A head (tail) disk is made only when the image's first (last) MiB holds a non-zero byte:
// otherwise its data sits in the middle of a disk, where no classifier that reads only the
// ends and the signature offsets can see it (README: "when its first/last MiB holds data").
//
// The images are read from their folder at build time and never copied into the project.
import { chmod, copyFile, type FileHandle, mkdir, open, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "../../tools/exec.ts";
import {
  type CorpusCase,
  DISK_BYTES,
  isAllZero,
  MIN_DISK_BYTES,
  MiB,
  mapLimit,
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
  readonly headNonzero: boolean;
  readonly tailNonzero: boolean;
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
 * lower bound: `too-small` for the raw images, and `nonzero-data:head` / `nonzero-data:tail`
 * exactly when the disk's first / last MiB holds a non-zero byte. Signatures vary with the
 * util-linux version (2.38 does not see bcachefs, scoutfs, cs_fvault2, bsd or dasd), so
 * none are listed, except on a head disk whose first MiB is zeros (vmfs, vmfs_volume):
 * it is kept because wipefs finds a signature further in, listed as `signature:<TYPE>@*`.
 */
export async function buildBlkidCorpus(imagesDir: string, dir: string): Promise<CorpusCase[]> {
  const images = await decompressAll(imagesDir, dir);
  const cases: CorpusCase[] = [];
  const disks = join(dir, "disks");
  await mkdir(disks, { recursive: true });
  const built = await mapLimit(images, 2, (img) => placeImage(img, disks));
  for (const { img, head, tail } of built) {
    const name = `${img.kind}-${img.image}`;
    cases.push({
      name: `${name}-raw`,
      path: img.raw,
      expect: img.size < MIN_DISK_BYTES ? ["foreign", "ineligible"] : "foreign",
      reasons: [
        ...(img.size < MIN_DISK_BYTES ? ["too-small"] : []),
        ...(img.headNonzero ? ["nonzero-data:head"] : []),
        ...(img.tailNonzero ? ["nonzero-data:tail"] : []),
      ],
      needsRoot: false,
    });
    for (const [variant, disk] of [
      ["head", head],
      ["tail", tail],
    ] as const) {
      if (disk) {
        cases.push({
          name: `${name}-${variant}`,
          path: disk.path,
          expect: "foreign",
          reasons: disk.reasons,
          needsRoot: false,
        });
      }
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
      const { size, head, tail } = await scanEnds(raw);
      return { kind: e.kind, image: e.image, raw, size, headNonzero: head, tailNonzero: tail };
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

async function scanEnds(path: string): Promise<{ size: number; head: boolean; tail: boolean }> {
  const fh = await open(path, "r");
  try {
    const size = (await fh.stat()).size;
    const span = Math.min(MiB, size);
    const buf = Buffer.alloc(span);
    const nonzeroAt = async (pos: number): Promise<boolean> => {
      const { bytesRead } = await fh.read(buf, 0, span, pos);
      if (bytesRead !== span) throw new Error(`short read of ${path}`);
      return !isAllZero(buf);
    };
    return { size, head: await nonzeroAt(0), tail: await nonzeroAt(size - span) };
  } finally {
    await fh.close();
  }
}

/**
 * Makes the head disk (the image at offset 0) and the tail disk (the image's last byte at
 * the disk's last byte) in one pass over the image, writing only its non-zero 64 KiB
 * blocks, so both stay sparse. A head disk whose first MiB is zeros is kept only when
 * wipefs still finds a signature on it (vmfs_volume: its magic is at 1 MiB); its reasons
 * then name those signature types. A tail disk whose last MiB is zeros is not made.
 */
async function placeImage(img: BlkidImage, disks: string): Promise<Placed> {
  const diskBytes = Math.max(DISK_BYTES, Math.ceil((img.size + 2 * MiB) / MiB) * MiB);
  const base = join(disks, `${img.kind}-${img.image}`);
  const outs = [
    { path: `${base}-head.img`, shift: 0 },
    ...(img.tailNonzero ? [{ path: `${base}-tail.img`, shift: diskBytes - img.size }] : []),
  ];
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
        for (const [i, o] of outs.entries()) {
          await dsts[i]!.write(block, 0, block.length, o.shift + pos + off);
        }
      }
    }
    for (const fh of dsts) await fh.truncate(diskBytes);
  } finally {
    await src.close();
    await Promise.all(dsts.map((fh) => fh.close()));
  }
  const headPath = outs[0]!.path;
  let head: Placed["head"];
  if (img.headNonzero) {
    head = { path: headPath, reasons: ["nonzero-data:head"] };
  } else {
    const types = await wipefsTypes(headPath);
    if (types.length > 0) head = { path: headPath, reasons: types.map((t) => `signature:${t}@*`) };
    else await rm(headPath);
  }
  const tail = outs[1] ? { path: outs[1].path, reasons: ["nonzero-data:tail"] } : undefined;
  return { img, head, tail };
}

interface Placed {
  readonly img: BlkidImage;
  readonly head: { path: string; reasons: string[] } | undefined;
  readonly tail: { path: string; reasons: string[] } | undefined;
}

/** The distinct signature types wipefs finds on a disk. */
async function wipefsTypes(path: string): Promise<string[]> {
  const { stdout } = await run("wipefs", ["--no-act", "--json", "--output", "TYPE", path]);
  if (stdout.trim() === "") return [];
  const parsed = JSON.parse(stdout) as { signatures?: { type: string }[] };
  return [...new Set((parsed.signatures ?? []).map((s) => s.type))];
}
