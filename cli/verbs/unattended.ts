// `liken-stick unattended --as NAME [--wipe] [PATH...]`: what the stick's /init runs for
// `liken.install=NAME`; the init reboots or powers off when it exits 0 and holds otherwise.
// The flow is installer/unattended/run.ts; this verb reads its options and hands it the
// hardware report.
import { usageError } from "../../common/errors.ts";
import { STICK_PAYLOAD, STICK_RUN } from "../../formats/stick-payload.ts";
import { EFIVARS } from "../../hardware/efi-vars.ts";
import { LLDP_LISTEN_MS } from "../../hardware/lldp-neighbors.ts";
import { produceReport } from "../../hwreport/produce.ts";
import { runUnattended } from "../../installer/unattended/run.ts";
import { requireFirmwareVariables } from "../firmware-variables.ts";
import { requireManifest } from "../load-manifest.ts";
import type { Verb } from "../verb.ts";

const DEFAULTS = {
  manifest: STICK_PAYLOAD.manifest,
  release: STICK_PAYLOAD.release,
  "status-file": STICK_RUN.installStatus,
  record: STICK_PAYLOAD.record,
} as const;

export const unattendedVerb: Verb = {
  words: ["unattended"],
  operands: "[PATH...]",
  minOperands: 0,
  maxOperands: Number.POSITIVE_INFINITY,
  summary: "the stick's unattended install: once per machine, then boot the installed disk",
  description: `
What the stick runs when its kernel command line says liken.install=NAME. It
first reads the disks: if one holds a complete install whose install id the
stick's record (--record) lists, the stick already installed this machine, and
it writes nothing, not even with --wipe. Otherwise it installs as NAME, or wipes
and reinstalls with --wipe, as liken-stick install does (which writes nothing
on a complete install of the same machine and release), and adds the install
id, the machine and the system disk's serial and WWN to the record.

Either way it then makes the installed disk the firmware's next boot, once: a
UEFI boot entry (Boot####) for the loader on the disk's ESP, and BootNext naming
it. The boot order is left alone, so the stick stays first. Exit code 0 means
the machine may reboot or power off; the stick's /init does that (--then only
chooses the words). Delete the record to let the stick install again.

With --repair (liken.repair=1) it repairs the mirror of NAME in place of the
install, as liken-stick repair does: a blank disk takes the missing member's
place. A mirror found whole is left as it is. Either way member 1 boots next.

With --as auto (liken.install=auto) it installs the one machine whose match in
the manifest selects this hardware: a NIC's MAC, the SMBIOS system serial or
UUID, every key of the match agreeing. With none, or more than one, it installs
nothing and prints this machine's MACs, serial and UUID and the machines that
came close.

With --report URL (liken.report=URL) it then POSTs one JSON document to URL: the
machine, the installer's status document and the hardware report, whether the
install was done or failed. It goes over the machine's declared network
([[machines.interfaces]]: bonds, VLANs, static addresses, routes), built as the
installed machine builds it at every boot; a machine that declares none takes an
address by DHCP when it has no route. It tries for at most a minute, and says
whether the report was sent; the exit code is the install's.

PATHs limit the look and the install to those block devices or image files.
Without --manifest and --release it uses the stick's payload.

It writes the firmware's variables only on a booted liken stick (its efivarfs,
${EFIVARS}); anywhere else --efivars DIR must name where they go, so that a
workstation's own boot entries are never touched. Either way the folder is
checked before anything is installed or recorded.`,
  options: [
    {
      name: "as",
      type: "string",
      value: "NAME",
      summary:
        "the manifest machine to install, or auto: the one whose match is this hardware (required)",
    },
    {
      name: "wipe",
      type: "boolean",
      summary: "wipe and reinstall: erase disks that hold this cluster's liken install",
    },
    {
      name: "repair",
      type: "boolean",
      summary: "repair the machine's mirror with a blank disk in place of the install",
    },
    {
      name: "manifest",
      type: "string",
      value: "FILE",
      summary: `the cluster manifest (${DEFAULTS.manifest})`,
    },
    {
      name: "release",
      type: "string",
      value: "DIR",
      summary: `the release for slot A (${DEFAULTS.release})`,
    },
    {
      name: "status-file",
      type: "string",
      value: "FILE",
      summary: `where the status document goes (${DEFAULTS["status-file"]})`,
    },
    {
      name: "record",
      type: "string",
      value: "FILE",
      summary: `the stick's record of what it installed (${DEFAULTS.record})`,
    },
    {
      name: "efivars",
      type: "string",
      value: "DIR",
      summary: `where the boot variables go (on the stick: ${EFIVARS}; elsewhere required)`,
    },
    {
      name: "report",
      type: "string",
      value: "URL",
      summary: "POST what happened (status and hardware report, JSON) to this http(s) URL",
    },
    {
      name: "then",
      type: "string",
      value: "reboot|poweroff",
      summary: "what the stick does next, for the words it prints (reboot)",
    },
  ],
  async run(args, io) {
    const option = (name: keyof typeof DEFAULTS) => {
      const value = args.options[name];
      return typeof value === "string" ? value : DEFAULTS[name];
    };
    const asked = args.options.as;
    if (typeof asked !== "string")
      throw usageError("missing --as NAME", "see liken-stick unattended --help");
    const then = args.options.then ?? "reboot";
    if (then !== "reboot" && then !== "poweroff")
      throw usageError(`--then is "${then}"`, "give --then reboot or --then poweroff");
    if (args.options.wipe === true && args.options.repair === true)
      throw usageError(
        "--wipe and --repair together",
        "repair takes a blank disk into the mirror and erases nothing; give one of them",
      );
    const releaseDir = option("release");
    const reportUrl = parseReportUrl(args.options.report);
    const efivars = await requireFirmwareVariables(
      typeof args.options.efivars === "string" ? args.options.efivars : undefined,
    );
    const manifest = await requireManifest(option("manifest"), "unattended", io);
    await runUnattended({
      manifest,
      as: asked,
      releaseDir,
      wipe: args.options.wipe === true,
      repair: args.options.repair === true,
      paths: args.operands,
      statusFile: option("status-file"),
      recordFile: option("record"),
      efivars,
      then,
      ...(reportUrl ? { reportUrl } : {}),
      hardwareReport: (machine) =>
        produceReport({
          manifest,
          ...(machine ? { machine } : {}),
          releaseDir,
          // Listening sends an LLDPDU on every NIC with carrier: on the stick, not a workstation.
          ...(process.env.LIKEN_STICK === "1" ? { lldpMs: LLDP_LISTEN_MS } : {}),
        }).then((r) => r.report),
      out: io.out,
      err: io.err,
    });
    return 0;
  },
};

function parseReportUrl(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const url = typeof value === "string" && URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw usageError(
      `--report ${String(value)} is not an http or https URL`,
      "give a URL such as http://10.0.0.1:8080/liken/reports",
    );
  return url.href;
}
