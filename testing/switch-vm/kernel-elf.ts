// The switch VM's kernel as the ELF inside Debian's bzImage. QEMU boots such an ELF through
// its PVH entry (Debian builds CONFIG_PVH) without the bzImage's decompressor, which under
// TCG spends about 2.5 s unpacking xz: the switch says ready in under 2 s instead of 4.3.
import { copyFile, open, readFile, rm, writeFile } from "node:fs/promises";
import { decompressInPlace } from "../../tools/xz.ts";

// The x86 boot protocol's setup header (Documentation/arch/x86/boot.rst): how many 512-byte
// setup sectors precede the protected-mode code, and where in that code the compressed
// kernel lies and how long it is (the kernel's build appends its 4-byte size to it).
const SETUP_SECTS = 0x1f1;
const PAYLOAD_OFFSET = 0x248;
const PAYLOAD_LENGTH = 0x24c;
const SIZE_SUFFIX = 4;
const XZ_MAGIC = Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);
const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/** Where the compressed kernel lies in `bzImage`, when it is xz; undefined otherwise. */
export function xzPayload(bzImage: Buffer): { start: number; length: number } | undefined {
  if (bzImage.length < PAYLOAD_LENGTH + 4) return undefined;
  const start = ((bzImage[SETUP_SECTS] ?? 0) + 1) * 512 + bzImage.readUInt32LE(PAYLOAD_OFFSET);
  const length = bzImage.readUInt32LE(PAYLOAD_LENGTH) - SIZE_SUFFIX;
  if (length <= 0 || start + length > bzImage.length) return undefined;
  if (!bzImage.subarray(start, start + XZ_MAGIC.length).equals(XZ_MAGIC)) return undefined;
  return { start, length };
}

/**
 * Writes the kernel ELF of `bzImage` to `out`. A kernel compressed otherwise than with xz
 * is copied as it is: it boots as well, only slower.
 */
export async function writeKernelElf(bzImage: string, out: string): Promise<void> {
  const image = await readFile(bzImage);
  const payload = xzPayload(image);
  if (!payload) {
    await copyFile(bzImage, out);
    return;
  }
  await rm(out, { force: true });
  await writeFile(`${out}.xz`, image.subarray(payload.start, payload.start + payload.length));
  await decompressInPlace([`${out}.xz`]);
  const head = Buffer.alloc(ELF_MAGIC.length);
  const file = await open(out);
  try {
    await file.read(head, 0, head.length, 0);
  } finally {
    await file.close();
  }
  if (!head.equals(ELF_MAGIC)) throw new Error(`${bzImage}'s xz payload is not an ELF kernel`);
}
