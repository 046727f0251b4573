// Debian components the host's sources may lack: a fresh Debian 12 lists only `main`, and
// the firmware the release's NIC drivers load is in `non-free-firmware`. Packages pinned
// with such a component are looked up (by the lock script) and downloaded (by the build)
// through a private apt whose sources.list names only that component, so the host's
// /etc/apt is neither needed nor changed.
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { LikenError } from "../../common/errors.ts";
import { privateAptOptions, updatePrivateLists } from "../../tools/apt.ts";
import { toolSaid } from "./tool-said.ts";

/** A component pinned packages may come from besides the host's own sources. */
export type Component = "non-free-firmware";

const KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg";

/** bookworm, its updates and its security archive, for one component. */
export function componentSources(component: Component): string {
  return [
    `deb [signed-by=${KEYRING}] http://deb.debian.org/debian bookworm ${component}`,
    `deb [signed-by=${KEYRING}] http://deb.debian.org/debian bookworm-updates ${component}`,
    `deb [signed-by=${KEYRING}] http://deb.debian.org/debian-security bookworm-security ${component}`,
    "",
  ].join("\n");
}

/**
 * Runs `use` with the apt-get/apt-cache options of a private apt for `component`, its
 * lists fetched fresh into a folder under `parent` that is removed afterwards.
 */
export async function withComponentApt<T>(
  component: Component,
  parent: string,
  use: (aptOptions: readonly string[]) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(parent, `.apt-${component}-`));
  try {
    await updatePrivateLists(dir, componentSources(component)).catch((error: unknown) => {
      throw new LikenError({
        kind: "failed",
        what: `apt-get update of the ${component} lists (bookworm on deb.debian.org) failed${toolSaid(error)}`,
        hint: `check that deb.debian.org is reachable (apt's proxy settings apply) and that ${KEYRING} exists (run npm run setup)`,
        cause: error,
      });
    });
    return await use(privateAptOptions(dir));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
