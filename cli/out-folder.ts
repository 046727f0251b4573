// Where a verb's --out goes must already be there: a build that made the folders of a
// mistyped path would leave its output where nobody looks (`--out /nonexistdir/x.img`
// made /nonexistdir). The check runs before anything is built or written.
import { stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { LikenError } from "../common/errors.ts";

/**
 * Refuses an --out whose folder does not exist or is not a folder. `out` itself may be new:
 * a file (image) or a folder (release, netboot, keys) the verb makes in that folder.
 */
export async function requireOutFolder(out: string, verb: string): Promise<void> {
  const folder = dirname(resolve(out));
  // A folder that is not there is refused below, with what to do.
  const found = await stat(folder).catch(() => undefined);
  if (found?.isDirectory()) return;
  throw new LikenError({
    kind: "refused",
    what: found
      ? `--out ${out} is inside ${folder}, which is not a folder`
      : `--out ${out} is inside ${folder}, which does not exist`,
    hint: `create the folder first with mkdir -p ${folder}, or give liken-stick ${verb} an --out in a folder that exists`,
  });
}
