// `liken-stick repair --manifest FILE --as NAME [PATH...]`: a blank disk takes the place of
// the missing member of a mirrored system disk.
import { usageError } from "../../common/errors.ts";
import { repairMirror } from "../../installer/repair/repair.ts";
import { requireManifest } from "../load-manifest.ts";
import type { Verb } from "../verb.ts";

export const repairVerb: Verb = {
  words: ["repair"],
  operands: "[PATH...]",
  minOperands: 0,
  maxOperands: Number.POSITIVE_INFINITY,
  summary: "take a blank disk into the mirror of a machine that lost one",
  description: `
For a machine installed with system_disk.mirror = true, one of whose two disks
is gone: finds the member that is left and a blank disk (the first in stable
order that matches system_disk, has the same sector size and room for the
system partitions), and makes the blank disk the missing member. Its system
partitions are copied from the member that is left, each read back; both
claims then name each other, and both disks go into the firmware's boot order.

Only a blank disk is taken; a disk that holds anything is never written. A
repair that was stopped is finished by the same repair. The machine's boot
agent keeps both members in step from its next boot (docs/install.md).`,
  options: [
    { name: "manifest", type: "string", value: "FILE", summary: "the cluster manifest (required)" },
    { name: "as", type: "string", value: "NAME", summary: "the machine to repair (required)" },
    {
      name: "efivars",
      type: "string",
      value: "DIR",
      summary: "where the firmware's variables are (default: efivarfs, for block devices)",
    },
  ],
  async run(args, io) {
    const file = args.options.manifest;
    const name = args.options.as;
    if (typeof file !== "string")
      throw usageError("missing --manifest FILE", "see liken-stick repair --help");
    if (typeof name !== "string")
      throw usageError("missing --as NAME", "see liken-stick repair --help");
    const manifest = await requireManifest(file, "repair", io);
    const efivars = args.options.efivars;
    await repairMirror({
      manifest,
      machine: name,
      paths: args.operands,
      ...(typeof efivars === "string" ? { efivars } : {}),
      say: (line) => io.out(`${line}\n`),
    });
    return 0;
  },
};
