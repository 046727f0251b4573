// The boot-path verdict for the installer, the planner and the menu: for each disk of the
// machine, the modules its driver chain needs that the release cannot load at boot. The same
// sysfs walk and judgement as the report (sysfs.ts, boot-path.ts), without the rest of it.
import type { BootModules } from "../formats/boot-modules.ts";
import { type ReleaseInfo, requireBootModules, requireRelease } from "../formats/release.ts";
import { bootPathOf, judgeChain, missingOf } from "./boot-path.ts";
import type { MissingDrivers } from "./disks/index.ts";
import { netNames } from "./net-names.ts";
import { findDisks, findNics } from "./sysfs.ts";

/** What inventoryDisks needs to mark disks `unsupported` (missing-driver:<module>). */
export async function findMissingDrivers(
  release: { readonly version: string; readonly modules: BootModules },
  root = "/",
): Promise<MissingDrivers> {
  const boot = bootPathOf(release.version, release.modules);
  const disks = await findDisks(root);
  const missing = new Map(disks.map((d) => [d.name, missingOf(judgeChain(d.chain, boot))]));
  return (facts) => missing.get(facts.name) ?? [];
}

/** The same for a release read with requireRelease. */
export async function missingDriversOf(release: ReleaseInfo, root = "/"): Promise<MissingDrivers> {
  return findMissingDrivers(
    { version: release.version, modules: await requireBootModules(release) },
    root,
  );
}

/** The same for the release in `dir`; a ReleaseInvalid refusal when it does not read. */
export async function releaseMissingDrivers(dir: string, root = "/"): Promise<MissingDrivers> {
  return missingDriversOf(await requireRelease(dir), root);
}

/** For each named disk whose driver chain the release cannot load at boot: the modules it lacks. */
export async function disksMissingDrivers(
  release: ReleaseInfo,
  disks: readonly string[],
  root = "/",
): Promise<{ readonly disk: string; readonly modules: readonly string[] }[]> {
  const boot = bootPathOf(release.version, await requireBootModules(release));
  return (await findDisks(root))
    .filter((d) => disks.includes(d.name))
    .map((d) => ({ disk: d.name, modules: missingOf(judgeChain(d.chain, boot)) }))
    .filter((d) => d.modules.length > 0);
}

/**
 * For each declared port whose NIC is here and whose driver chain the release's root cannot
 * load: the modules it lacks. A port found under no name here is not judged (PortMissing
 * says so at boot).
 */
export async function portsMissingDrivers(
  release: ReleaseInfo,
  ports: readonly string[],
  root = "/",
): Promise<{ readonly port: string; readonly modules: readonly string[] }[]> {
  if (ports.length === 0) return [];
  const boot = bootPathOf(release.version, await requireBootModules(release), "nic");
  const out: { port: string; modules: string[] }[] = [];
  for (const nic of await findNics(root)) {
    // Before the boot renamed it the NIC has its kernel name; after, its predictable one.
    const name = (await netNames(root, nic.name)).predictable ?? nic.name;
    if (!ports.includes(name)) continue;
    const modules = missingOf(judgeChain(nic.chain, boot));
    if (modules.length > 0) out.push({ port: name, modules });
  }
  return out;
}
