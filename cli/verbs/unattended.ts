// `liken-stick unattended --as NAME [--wipe] [PATH...]`: what the stick's /init runs for
// `liken.install=NAME`; the init reboots or powers off when it exits 0 and holds otherwise.
import { LikenError, usageError } from "../../common/errors.ts";
import { formatSizeShort } from "../../common/size.ts";
import { inventoryDisks } from "../../hardware/disks/index.ts";
import { renderDisks } from "../../hardware/disks/render.ts";
import { EFIVARS } from "../../hardware/efi-vars.ts";
import { readMachineIdentity } from "../../hardware/machine-identity.ts";
import { releaseMissingDrivers } from "../../hardware/missing-drivers.ts";
import { chooseMachine, describeIdentity } from "../../installer/choose-machine.ts";
import { unattended } from "../../installer/unattended.ts";
import type { Manifest } from "../../manifest/index.ts";
import { requireManifest } from "../load-manifest.ts";
import type { Io, Verb } from "../verb.ts";

const DEFAULTS = {
  manifest: "/payload/cluster.toml",
  release: "/payload/release",
  "status-file": "/run/liken/install-status.json",
  record: "/payload/installed.json",
  efivars: EFIVARS,
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

PATHs limit the look and the install to those block devices or image files.
Without --manifest and --release it uses the stick's payload.`,
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
      summary: `the firmware's variables, an efivarfs mount (${DEFAULTS.efivars})`,
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
    const manifest = await requireManifest(option("manifest"), "unattended", io);
    const name = asked === AUTO ? await machineOfThisHardware(manifest, io) : asked;
    try {
      await unattended({
        manifest,
        machine: name,
        releaseDir: release,
        wipe: args.options.wipe === true,
        paths: args.operands,
        statusFile: option("status-file"),
        recordFile: option("record"),
        efivars: option("efivars"),
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
      // Under the error line (main prints it), every disk with its verdict, as install does.
      const missing = await releaseMissingDrivers(release).catch(() => undefined);
      const disks = await inventoryDisks({ paths: args.operands, missingDrivers: missing }).catch(
        () => [],
      );
      io.err(renderDisks(disks));
      throw error;
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
