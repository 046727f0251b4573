// `liken-stick plan --manifest FILE --as NAME [PATH...]`: the layout install would write.
import { randomUUID } from "node:crypto";
import { LikenError, usageError } from "../../common/errors.ts";
import { requireRelease } from "../../formats/release.ts";
import { inventoryDisks } from "../../hardware/disks/index.ts";
import { missingDriversOf } from "../../hardware/missing-drivers.ts";
import { readTpmPresence } from "../../hardware/tpm/presence.ts";
import { installsWriting } from "../../installer/lock.ts";
import { planInstall, planResultOf } from "../../installer/plan/plan-install.ts";
import { renderLayout, renderPlanFailure } from "../../installer/plan/render.ts";
import { requireManifest } from "../load-manifest.ts";
import { SECTOR_SIZE_OPTION, sectorSizeOf } from "../sector-size.ts";
import type { Verb } from "../verb.ts";
import { wipeClustersOf } from "../wipe-clusters.ts";

export const plan: Verb = {
  words: ["plan"],
  operands: "[PATH...]",
  minOperands: 0,
  maxOperands: Number.POSITIVE_INFINITY,
  summary: "show the layout that install would write",
  description: `
Classifies the machine's disks (or the block devices and image files named),
picks the system disk for machine NAME of the manifest, and lays out the GPT of
every disk the install would write: ESP, slot A, slot B, crash journal, state
and the storage roles. Nothing is written.

The system disk is the first eligible disk matching the machine's system_disk
selector, or else the first eligible disk ordered by transport, serial, WWN and
path. With --release, a slot must hold the release's root filesystem, and a
disk that needs a driver the release cannot load at boot is left out
(liken-stick hwreport names the driver). With
--wipe, disks holding a liken install count as targets (they would be erased).

It plans as install does, with the same refusals: a disk another install is
writing (DiskBusy), a foreign disk named for a wipe (DiskNotLiken). When the
machine already holds a complete install of this release, it says that install
writes nothing, and exits 0.`,
  options: [
    { name: "manifest", type: "string", value: "FILE", summary: "the cluster manifest (required)" },
    {
      name: "as",
      type: "string",
      value: "NAME",
      summary: "the manifest machine to install (required)",
    },
    { name: "release", type: "string", value: "DIR", summary: "the release to install" },
    { name: "wipe", type: "boolean", summary: "plan a wipe and reinstall" },
    {
      name: "wipe-cluster",
      type: "string",
      multiple: true,
      value: "NAME",
      summary: "with --wipe, also count disks of cluster NAME as targets; repeatable",
    },
    SECTOR_SIZE_OPTION,
    { name: "json", type: "boolean", summary: "print JSON for programs" },
  ],
  async run(args, io) {
    const file = args.options.manifest;
    const name = args.options.as;
    if (typeof file !== "string")
      throw usageError("missing --manifest FILE", "see liken-stick plan --help");
    if (typeof name !== "string")
      throw usageError("missing --as NAME", "see liken-stick plan --help");
    const manifest = await requireManifest(file, "plan", io);
    const releaseDir = args.options.release;
    const release = typeof releaseDir === "string" ? await requireRelease(releaseDir) : undefined;
    // With a release, a disk whose driver chain needs a module it cannot load at boot is
    // unsupported (missing-driver:<module>), as install would see it.
    const missing = release ? await missingDriversOf(release) : undefined;
    const disks = await inventoryDisks({
      paths: args.operands,
      missingDrivers: missing,
      ...sectorSizeOf(args.options),
    });
    const planned = planInstall({
      disks,
      manifest,
      machine: name,
      ...(release ? { release } : {}),
      wipe: args.options.wipe === true,
      wipeClusters: wipeClustersOf(args.options),
      paths: args.operands,
      writing: await installsWriting(disks),
      newInstallId: randomUUID(),
      now: Math.floor(Date.now() / 1000),
      tpm: readTpmPresence(),
      // As `install` would: it prints the recovery key.
      recoveryTo: ["console"],
    });
    if (planned.kind === "done") {
      const { path, claim } = planned.disk;
      if (args.options.json) {
        const done = { path, installId: claim?.installId, release: claim?.release };
        io.out(`${JSON.stringify({ ok: true, done }, null, 2)}\n`);
      } else
        io.out(
          `${path} already holds ${name} with release ${claim?.release}: install writes nothing.\n`,
        );
      return 0;
    }
    const result = planResultOf(planned);
    if (args.options.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
    if (!result.ok) {
      if (!args.options.json) io.err(renderPlanFailure(result.failure));
      const { message, hint, reason } = result.failure;
      throw new LikenError({
        kind: reason === "UnknownMachine" ? "usage" : "refused",
        what: message,
        hint,
        reason,
      });
    }
    if (!args.options.json) io.out(renderLayout(result.layout));
    return 0;
  },
};
