// The stick checks itself before it runs anything (docs/image.md, What the stick holds): a
// manifest changed on its payload, or a changed block of its root image or of the
// release's root (whose Node.js it runs), holds the console with what to do, and neither
// the menu nor an install starts.
import { copyFile, mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseGpt } from "../../formats/gpt.ts";
import { STICK_ROOT_IMAGE } from "../../image-build/stick/initrd-init.ts";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import { copyIntoFat, copyOutOfFat, readFatFile } from "../../tools/mtools.ts";
import { startVm } from "./harness.ts";

let dir: string;
let stick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-checks-"));
  const release = await cachedRelease({ version: "1.0.0" });
  stick = await cachedStick({
    manifest: "examples/cluster.toml",
    releaseDir: release,
    append: ["liken.install=leader-1"],
  });
}, 300_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A copy of the stick and its payload filesystem's address (`image@@offset` for mtools). */
async function stickCopy(name: string): Promise<string> {
  const copy = join(dir, name);
  await copyFile(stick, copy);
  const handle = await open(copy, "r");
  const head = Buffer.alloc(64 * 1024);
  await handle.read(head, 0, head.length, 0);
  await handle.close();
  const payload = parseGpt(head)?.entries.find((e) => e.name === "liken-stick-payload");
  if (!payload) throw new Error(`${copy} has no payload partition`);
  return `${copy}@@${payload.start}`;
}

async function bootsToHold(image: string, message: RegExp): Promise<void> {
  const vm = await startVm({ stick: image.split("@@")[0] as string });
  await vm.waitFor(message, 180_000);
  await vm.waitFor(/liken-stick: the console holds here/, 10_000);
  expect(vm.console()).not.toMatch(/unattended install as|Arrows or j\/k: move/);
  await vm.stop();
}

it("holds before the install when the manifest on the payload changed", async () => {
  const payload = await stickCopy("manifest.img");
  const [disk, offset] = payload.split("@@") as [string, string];
  const manifest = await readFatFile(disk, Number(offset), "cluster.toml");
  const changed = join(dir, "cluster.toml");
  await writeFile(changed, `${manifest}\n# changed after the build\n`);
  await copyIntoFat(payload, changed, "cluster.toml");
  await bootsToHold(payload, /the payload's checksums do not match: write the stick again/);
}, 300_000);

it("holds before the install when the stick's root image changed", async () => {
  const payload = await stickCopy("root.img");
  const root = join(dir, STICK_ROOT_IMAGE);
  await copyOutOfFat(payload, STICK_ROOT_IMAGE, root);
  const bytes = await readFile(root);
  bytes[0] = (bytes[0] as number) ^ 0xff; // the squashfs superblock's first byte
  await writeFile(root, bytes);
  await copyIntoFat(payload, root, STICK_ROOT_IMAGE);
  await bootsToHold(payload, /the stick's root does not (map through dm-verity|mount)/);
}, 300_000);

it("holds before the install when the release's root image, whose Node.js the stick runs, changed", async () => {
  const payload = await stickCopy("release-root.img");
  const root = join(dir, "rootfs.img");
  await copyOutOfFat(payload, "release/rootfs.img", root);
  const bytes = await readFile(root);
  bytes[1024] = (bytes[1024] as number) ^ 0xff; // the erofs superblock's magic
  await writeFile(root, bytes);
  await copyIntoFat(payload, root, "release/rootfs.img");
  await bootsToHold(payload, /the release's root does not (map through dm-verity|mount)/);
}, 300_000);
