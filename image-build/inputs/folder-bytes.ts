// How far a download into a folder is: apt-get download writes each .deb into its working
// folder as it arrives, so the bytes of the folder's files are the bytes received. Read a
// few times a second while the download runs, for the progress line.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

const EVERY_MS = 250;

/** Calls `report` with the bytes of the regular files directly in `dir` until stop(). */
export function watchFolderBytes(
  dir: string,
  report: (bytes: number) => void,
): { stop(): Promise<void> } {
  let reading: Promise<void> | undefined;
  const read = async () => {
    let bytes = 0;
    // A folder not made yet holds no bytes so far.
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      // A file renamed or removed between readdir and stat is not counted.
      const info = await stat(join(dir, name)).catch(() => undefined);
      if (info?.isFile()) bytes += info.size;
    }
    report(bytes);
  };
  // One read at a time: a slow disk skips a turn rather than piling reads up.
  const timer = setInterval(() => {
    reading ??= read().finally(() => {
      reading = undefined;
    });
  }, EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await reading;
    },
  };
}
