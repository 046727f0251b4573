// A slot's partition copied from one disk of the mirror to the other: the release's
// rootfs.img (its erofs and dm-verity hash tree) read from the slot that holds it, written
// to the other disk's slot, and read back against the sha256 its release.toml names, as
// staging reads back what it wrote (stage-release.ts).
import { open } from "node:fs/promises";
import { MIB } from "../common/size.ts";
import type { ReleaseInfo } from "../formats/release.ts";
import { hashRegion } from "../formats/write-image.ts";

const CHUNK = 4 * MIB;

export async function copySlotPartition(
  fromDevice: string,
  toDevice: string,
  release: ReleaseInfo,
): Promise<void> {
  const length = release.rootfsSize;
  const source = await open(fromDevice, "r");
  try {
    const target = await open(toDevice, "r+");
    try {
      const buffer = Buffer.alloc(CHUNK);
      for (let pos = 0; pos < length; pos += CHUNK) {
        const n = Math.min(CHUNK, length - pos);
        const { bytesRead } = await source.read(buffer, 0, n, pos);
        if (bytesRead !== n)
          throw new Error(
            `${fromDevice} ends at byte ${pos + bytesRead}, release ${release.version} is ${length} bytes`,
          );
        let done = 0;
        while (done < n)
          done += (await target.write(buffer, done, n - done, pos + done)).bytesWritten;
      }
      await target.sync();
      const written = await hashRegion(target, 0, length);
      const expected = release.files["rootfs.img"]?.sha256;
      if (written !== expected)
        throw new Error(
          `${toDevice} reads back sha256 ${written}, release ${release.version} says ${expected}`,
        );
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
