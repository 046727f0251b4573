// `liken-stick inspect [--json] PATH`: an installed disk, read from outside.
import { inspectDisk, renderInspection } from "../../installer/inspect/index.ts";
import type { Verb } from "../verb.ts";

export const inspectVerb: Verb = {
  words: ["inspect"],
  operands: "PATH",
  minOperands: 1,
  maxOperands: 1,
  summary: "read an installed disk (device or image file) from outside",
  description: `
Reads a disk that liken installed, a block device or an image file, without
mounting anything and without writing: the liken claim, the partitions, each
slot's release and whether its root filesystem still hashes as the release
says, the boot entries with their tries, the spec, the installer's status, the
machine's own status, its declared network and how its last boot held it, and
the crash journal. An image file needs no root.

A disk without a valid liken claim is refused. On a partial install, or where a
part cannot be read, that part is shown as missing and named under Problems.
docs/inspect.md explains each field and what to do about a problem.`,
  options: [
    { name: "json", type: "boolean", summary: "print JSON for programs (docs/inspect.md)" },
  ],
  async run(args, io) {
    const inspection = await inspectDisk(args.operands[0] as string);
    io.out(
      args.options.json ? `${JSON.stringify(inspection, null, 2)}\n` : renderInspection(inspection),
    );
    return 0;
  },
};
