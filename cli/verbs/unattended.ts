// `liken-stick unattended --as NAME [--wipe] [PATH...]`: what the stick's /init runs for
// `liken.install=NAME`; the init reboots or powers off when it exits 0 and holds otherwise.
import { readFile } from "node:fs/promises";
import { LikenError, usageError } from "../../common/errors.ts";
import { formatSizeShort } from "../../common/size.ts";
import { inventoryDisks } from "../../hardware/disks/index.ts";
import { renderDisks } from "../../hardware/disks/render.ts";
import { EFIVARS } from "../../hardware/efi-vars.ts";
import { readMachineIdentity } from "../../hardware/machine-identity.ts";
import { releaseMissingDrivers } from "../../hardware/missing-drivers.ts";
import { requireNetwork } from "../../hardware/network-up.ts";
import { produceReport } from "../../hwreport/produce.ts";
import { chooseMachine, describeIdentity } from "../../installer/choose-machine.ts";
import { sendReport } from "../../installer/send-report.ts";
import { unattended } from "../../installer/unattended.ts";
import type { Manifest } from "../../manifest/index.ts";
import { requireFirmwareVariables } from "../firmware-variables.ts";
import { requireManifest } from "../load-manifest.ts";
import type { Io, Verb } from "../verb.ts";

const DEFAULTS = {
  manifest: "/payload/cluster.toml",
  release: "/payload/release",
  "status-file": "/run/liken/install-status.json",
  record: "/payload/installed.json",
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

With --as auto (liken.install=auto) it installs the one machine whose match in
the manifest selects this hardware: a NIC's MAC, the SMBIOS system serial or
UUID, every key of the match agreeing. With none, or more than one, it installs
nothing and prints this machine's MACs, serial and UUID and the machines that
came close.

With --report URL (liken.report=URL) it then POSTs one JSON document to URL: the
machine, the installer's status document and the hardware report, whether the
install was done or failed. It takes an address by DHCP when the machine has no
route, tries for at most a minute, and says whether the report was sent; the
exit code is the install's.

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
    const release = option("release");
    const reportUrl = parseReportUrl(args.options.report);
    const efivars = await requireFirmwareVariables(
      typeof args.options.efivars === "string" ? args.options.efivars : undefined,
    );
    const manifest = await requireManifest(option("manifest"), "unattended", io);
    let machine: string | null = null;
    try {
      machine = asked === AUTO ? await machineOfThisHardware(manifest, io) : asked;
      await unattended({
        manifest,
        machine,
        releaseDir: release,
        wipe: args.options.wipe === true,
        paths: args.operands,
        statusFile: option("status-file"),
        recordFile: option("record"),
        efivars,
        then,
        say: (line) => io.out(`${line}\n`),
        onEvent: (e) => {
          if (e.type === "step") io.out(`» ${e.what}\n`);
          else if (e.done === e.total)
            io.out(`  ${formatSizeShort(e.total)} written and verified\n`);
        },
      });
      return 0;
    } catch (error) {
      // Under the error line (main prints it), every disk with its verdict, as install does;
      // a machine auto could not name has printed what it is instead.
      if (machine !== null) {
        // Without the release's verdicts the disks are listed without missing drivers.
        const missing = await releaseMissingDrivers(release).catch(() => undefined);
        // The disks are context for the error thrown below: none listed rather than a second error.
        const disks = await inventoryDisks({
          paths: args.operands,
          missingDrivers: missing,
        }).catch(() => []);
        io.err(renderDisks(disks));
      }
      throw error;
    } finally {
      if (reportUrl)
        await reportTo(reportUrl, machine, manifest, release, option("status-file"), io);
    }
  },
};

const AUTO = "auto";

/** liken.install=auto: the manifest machine whose match is this hardware, or a refusal that lists what it saw. */
async function machineOfThisHardware(manifest: Manifest, io: Io): Promise<string> {
  const identity = await readMachineIdentity();
  const choice = chooseMachine(manifest.machines, identity);
  const seen = `this machine: ${describeIdentity(identity)}`;
  if (choice.kind === "one") {
    io.out(`liken-stick: ${seen}; it is ${choice.machine} in the manifest\n`);
    return choice.machine;
  }
  io.err(`liken-stick: ${seen}\n`);
  if (choice.kind === "many")
    throw new LikenError({
      kind: "refused",
      what: `${choice.machines.join(" and ")} all match this hardware`,
      hint: "make their matches in the manifest tell them apart, or boot with liken.install=NAME",
      reason: "MachineNotMatched",
    });
  for (const near of choice.near)
    io.err(
      `liken-stick: ${near.machine} came close: its ${near.agreed.join(" and ")} agreed, its ${near.differed.join(" and ")} did not\n`,
    );
  throw new LikenError({
    kind: "refused",
    what: "no machine of the manifest matches this hardware",
    hint: "add this machine's MAC, serial or UUID to its match in the manifest, or boot with liken.install=NAME",
    reason: "MachineNotMatched",
  });
}

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

/** Sends the install's report to `url`; says what came of it, and never throws. */
async function reportTo(
  url: string,
  machine: string | null,
  manifest: Manifest,
  releaseDir: string,
  statusFile: string,
  io: Io,
): Promise<void> {
  const say = (line: string) => io.out(`liken-stick: ${line}\n`);
  try {
    await requireNetwork();
  } catch (error) {
    say(`report not sent to ${url}: ${(error as Error).message} (the install is not affected)`);
    return;
  }
  // The report goes without the installer's status when it cannot be read.
  const status = await readFile(statusFile, "utf8").then(
    (t) => JSON.parse(t) as unknown,
    () => null,
  );
  // The report goes without the hardware section when it cannot be made; the install is done.
  const hardware = await produceReport({
    manifest,
    ...(machine ? { machine } : {}),
    releaseDir,
  }).then(
    (r) => r.report,
    () => null,
  );
  const outcome = await sendReport(url, {
    schema: "liken-install-report/1",
    machine,
    status,
    hardware,
  });
  say(
    outcome.sent
      ? `report sent to ${url} (${outcome.detail})`
      : `report not sent to ${url} after ${outcome.tries} tries: ${outcome.detail} (the install is not affected)`,
  );
}
