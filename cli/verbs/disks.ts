// `liken-stick disks [PATH...]`: every disk and whether liken may write it.
import { inventoryDisks } from "../../hardware/disks/index.ts";
import { renderDisks } from "../../hardware/disks/render.ts";
import { SECTOR_SIZE_OPTION, sectorSizeOf } from "../sector-size.ts";
import type { Verb } from "../verb.ts";

export const disks: Verb = {
  words: ["disks"],
  operands: "[PATH...]",
  minOperands: 0,
  maxOperands: Number.POSITIVE_INFINITY,
  summary: "classify the machine's disks, or the given block devices and image files",
  description: `
Reads every disk of the machine (loop devices and optical drives left out), or
exactly the block devices and image files named, and says whether an install
may write each one. Nothing is written.

  blank        no partition table, no signature anywhere wipefs looks, the
               first and last MiB all zeros, not in use: install may write it
  liken        carries a valid liken claim: only wipe and reinstall writes it
  foreign      holds data liken did not write: never written
  ineligible   read-only, removable, too small, the boot medium, a partition
               or a virtual device
  unsupported  needs a driver the release cannot load at boot

REASONS say why; docs/disks.md explains each and what to do.`,
  options: [
    {
      name: "json",
      type: "boolean",
      summary: "print JSON for programs (docs/design.md section 2)",
    },
    SECTOR_SIZE_OPTION,
  ],
  async run(args, io) {
    const found = await inventoryDisks({ paths: args.operands, ...sectorSizeOf(args.options) });
    io.out(args.options.json ? `${JSON.stringify(found, null, 2)}\n` : renderDisks(found));
    return 0;
  },
};
