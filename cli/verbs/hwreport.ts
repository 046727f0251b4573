// `liken-stick hwreport [--json] [--manifest FILE [--as NAME]] [--release DIR]`: the hardware
// report (hwreport/, docs/hwreport.md).
import { usageError } from "../../common/errors.ts";
import { produceReport, renderReport } from "../../hwreport/index.ts";
import { requireManifest } from "../load-manifest.ts";
import type { Verb } from "../verb.ts";

export const hwreportVerb: Verb = {
  words: ["hwreport"],
  operands: "",
  minOperands: 0,
  maxOperands: 0,
  summary: "the hardware report: drivers, boot-path verdict and proposed layout",
  description: `
Reads the machine: system, firmware (UEFI or legacy, Secure Boot), CPU, memory,
every disk and NIC with the chain of drivers from it to the PCI root and the
module behind each driver. Nothing is written, unless --save names a folder:
the stick's menu saves each report it shows to the payload's reports/ folder.

With --release, each disk whose chain needs a module the release cannot load at
boot is named, and is unsupported. With --manifest, the ports each machine
declares are checked, and the report shows the layout install would write for
machine NAME (--as), or for every machine; unsupported disks are left out.

With --lldp SECONDS, each NIC with carrier sends one LLDP frame and listens
that long for its switch's, and the report says which switch and port each NIC
is cabled to (the stick's menu and its unattended report listen 5 seconds).

Problems come first; docs/hwreport.md explains each one and what to do.`,
  options: [
    { name: "json", type: "boolean", summary: "print JSON for programs (docs/hwreport.md)" },
    { name: "manifest", type: "string", value: "FILE", summary: "the cluster manifest" },
    {
      name: "as",
      type: "string",
      value: "NAME",
      summary: "the manifest machine this one is (default: every machine)",
    },
    { name: "release", type: "string", value: "DIR", summary: "the release to judge against" },
    {
      name: "save",
      type: "string",
      value: "DIR",
      summary: "also write the JSON to DIR/<serial>.json (without a serial: docs/hwreport.md)",
    },
    {
      name: "lldp",
      type: "string",
      value: "SECONDS",
      summary: "listen this long on each NIC for its switch's LLDP (1 to 60; root)",
    },
  ],
  async run(args, io) {
    const file = args.options.manifest;
    const name = args.options.as;
    if (typeof name === "string" && typeof file !== "string")
      throw usageError("--as NAME needs --manifest FILE", "see liken-stick hwreport --help");
    const manifest =
      typeof file === "string" ? await requireManifest(file, "hwreport", io) : undefined;
    if (manifest && typeof name === "string" && !manifest.machines.some((m) => m.name === name))
      throw usageError(
        `the manifest has no machine named "${name}"`,
        `choose one of: ${manifest.machines.map((m) => m.name).join(", ")}`,
      );
    const releaseDir = args.options.release;
    const saveDir = args.options.save;
    const lldpMs = lldpOption(args.options.lldp);
    const { report, notSaved } = await produceReport({
      ...(manifest ? { manifest } : {}),
      ...(typeof name === "string" ? { machine: name } : {}),
      ...(typeof releaseDir === "string" ? { releaseDir } : {}),
      ...(typeof saveDir === "string" ? { saveDir } : {}),
      ...(lldpMs ? { lldpMs } : {}),
    });
    io.out(args.options.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
    if (notSaved) throw notSaved;
    return 0;
  },
};

function lldpOption(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 60)
    throw usageError(
      `--lldp ${String(value)} is not a whole number of seconds from 1 to 60`,
      "give --lldp 5",
    );
  return seconds * 1000;
}
