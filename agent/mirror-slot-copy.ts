// A slot's partition copied from one disk of the mirror to the other: the release's
// rootfs.img (its erofs and dm-verity hash tree) read from the slot that holds it, written
// to the other disk's slot, and read back against the sha256 its release.toml names, as
// staging reads back what it wrote (stage-release.ts).
import { open } from "node:fs/promises";
import type { ReleaseInfo } from "../formats/release.ts";
import { copyRegion, hashRegion } from "../formats/write-image.ts";

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
      await copyRegion(source, 0, target, 0, length).catch((error: Error) => {
        throw new Error(
          `${fromDevice} to ${toDevice}, release ${release.version}: ${error.message}`,
        );
      });
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
