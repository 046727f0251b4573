// dpkg-deb(1): unpacks a .deb's files without installing it (no maintainer scripts, no
// dpkg database), which is how the image build gets Debian's binaries, libraries and kernel.
import { run } from "./exec.ts";

/** Extracts the files of `deb` into `destDir` (created if missing; other debs may share it). */
export async function extractDeb(deb: string, destDir: string): Promise<void> {
  await run(
    "dpkg-deb",
    [
      "--extract", // files only: the control scripts never run
      deb,
      destDir,
    ],
    { timeoutMs: 10 * 60_000 }, // the kernel package unpacks to some 400 MB
  );
}
