// An encrypted volume of a disk image, read on the host for a test: the host kernel has no
// dm-crypt, so the volume key comes out of the LUKS2 header (cryptsetup luksDump
// --dump-volume-key, with a key that opens a keyslot) and the data is decrypted here as
// dm-crypt does it: aes-xts-plain64, each 512-byte sector with its number as the tweak
// (cryptsetup(8) and the kernel's dm-crypt.rst; the volumes liken makes on 512-byte disks).
import { createDecipheriv } from "node:crypto";
import { open, writeFile } from "node:fs/promises";
import { LUKS_DATA_OFFSET } from "../tools/cryptsetup.ts";
import { run } from "../tools/exec.ts";
import { attachLoop, detachLoop } from "../tools/losetup.ts";

export interface Region {
  readonly start: number;
  readonly size: number;
}

/** The volume key of the LUKS2 volume at `region` of `disk`, opened with `passphrase`. */
export async function volumeKey(disk: string, region: Region, passphrase: string): Promise<Buffer> {
  const loop = await attachLoop(disk, { offset: region.start, size: region.size, sectorSize: 512 });
  try {
    const dump = await run(
      "cryptsetup",
      ["luksDump", "--dump-volume-key", "--batch-mode", "--key-file=-", loop],
      { input: passphrase },
    );
    const hex = /MK dump:\s*((?:[0-9a-f]{2}\s+)+)/.exec(dump.stdout)?.[1];
    if (!hex) throw new Error(`cryptsetup luksDump printed no volume key: ${dump.stdout}`);
    return Buffer.from(hex.replace(/\s+/g, ""), "hex");
  } finally {
    await detachLoop(loop);
  }
}

/** Writes what the volume at `region` holds, decrypted with `key`, to `out`. */
export async function decryptVolume(
  disk: string,
  region: Region,
  key: Buffer,
  out: string,
): Promise<void> {
  const size = region.size - LUKS_DATA_OFFSET;
  const file = await open(disk, "r");
  try {
    const data = Buffer.alloc(size);
    await file.read(data, 0, size, region.start + LUKS_DATA_OFFSET);
    const plain = Buffer.alloc(size);
    const tweak = Buffer.alloc(16);
    for (let sector = 0; sector * 512 < size; sector++) {
      tweak.fill(0);
      tweak.writeBigUInt64LE(BigInt(sector));
      const decipher = createDecipheriv("aes-256-xts", key, tweak).setAutoPadding(false);
      const at = sector * 512;
      decipher.update(data.subarray(at, at + 512)).copy(plain, at);
      decipher.final();
    }
    await writeFile(out, plain);
  } finally {
    await file.close();
  }
}
