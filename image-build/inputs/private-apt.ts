// What the host's apt may not offer, fetched through a private apt (its own sources.list,
// lists and cache) so the host's /etc/apt is neither needed nor changed:
// - a component its sources lack: a fresh Debian 12 lists only `main`, and the firmware the
//   release's NIC drivers load is in `non-free-firmware`;
// - another architecture: the build host is amd64 and its dpkg knows no arm64, so arm64's
//   packages (main and non-free-firmware) come through an apt whose only architecture is
//   arm64 (no dpkg --add-architecture).
// The lock script looks packages up through it, and the build downloads them through it.
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Arch } from "../../common/arch.ts";
import { LikenError } from "../../common/errors.ts";
import { privateAptOptions, updatePrivateLists } from "../../tools/apt.ts";
import { toolSaid } from "./tool-said.ts";

/** A component pinned packages may come from besides the host's own sources. */
export type Component = "non-free-firmware";

/** The arches whose packages the host's apt does not fetch: they all come privately. */
export const PRIVATE_ARCHES: readonly Arch[] = ["arm64"];

const KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg";

/** bookworm, its updates and its security archive, with these components. */
function bookwormSources(components: readonly string[]): string {
  const list = components.join(" ");
  return [
    `deb [signed-by=${KEYRING}] http://deb.debian.org/debian bookworm ${list}`,
    `deb [signed-by=${KEYRING}] http://deb.debian.org/debian bookworm-updates ${list}`,
    `deb [signed-by=${KEYRING}] http://deb.debian.org/debian-security bookworm-security ${list}`,
    "",
  ].join("\n");
}

/** bookworm, its updates and its security archive, for one component. */
export function componentSources(component: Component): string {
  return bookwormSources([component]);
}

/** An arch's whole pinned set: main and the firmware's non-free-firmware. */
export function archSources(): string {
  return bookwormSources(["main", "non-free-firmware"]);
}

/**
 * Runs `use` with the apt-get/apt-cache options of a private apt for `component`, its
 * lists fetched fresh into a folder under `parent` that is removed afterwards.
 */
export function withComponentApt<T>(
  component: Component,
  parent: string,
  use: (aptOptions: readonly string[]) => Promise<T>,
): Promise<T> {
  return withPrivateApt(
    { name: component, what: `the ${component} lists`, sources: componentSources(component) },
    parent,
    use,
  );
}

/**
 * Runs `use` with the options of a private apt whose only architecture is `arch`, listing
 * main and non-free-firmware; its lists are fetched fresh under `parent` and removed after.
 */
export function withArchApt<T>(
  arch: Arch,
  parent: string,
  use: (aptOptions: readonly string[]) => Promise<T>,
): Promise<T> {
  return withPrivateApt(
    {
      name: arch,
      what: `the ${arch} lists (main, non-free-firmware)`,
      sources: archSources(),
      arch,
    },
    parent,
    use,
  );
}

async function withPrivateApt<T>(
  apt: { name: string; what: string; sources: string; arch?: Arch },
  parent: string,
  use: (aptOptions: readonly string[]) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(parent, `.apt-${apt.name}-`));
  try {
    await updatePrivateLists(dir, apt.sources, apt.arch).catch((error: unknown) => {
      throw new LikenError({
        kind: "failed",
        what: `apt-get update of ${apt.what} (bookworm on deb.debian.org) failed${toolSaid(error)}`,
        hint: `check that deb.debian.org is reachable (apt's proxy settings apply) and that ${KEYRING} exists (run npm run setup)`,
        cause: error,
      });
    });
    return await use(privateAptOptions(dir, apt.arch));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
