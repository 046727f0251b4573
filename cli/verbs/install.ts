// `liken-stick install --manifest FILE --as NAME --release DIR [--wipe] [PATH...]`.
import { readFile } from "node:fs/promises";
import { oneLine, usageError } from "../../common/errors.ts";
import { formatSizeShort } from "../../common/size.ts";
import type { InstallerStatus } from "../../formats/installer-status.ts";
import { STICK_RUN } from "../../formats/stick-payload.ts";
import { inventoryDisks } from "../../hardware/disks/index.ts";
import { renderDisks } from "../../hardware/disks/render.ts";
import { releaseMissingDrivers } from "../../hardware/missing-drivers.ts";
import { install } from "../../installer/install.ts";
import { renderLayout } from "../../installer/plan/render.ts";
import type { Layout } from "../../installer/plan/types.ts";
import { recoveryKeyWords } from "../../installer/recovery-key-words.ts";
import { defaultStatusFile } from "../../installer/status-file.ts";
import { onLikenStick } from "../firmware-variables.ts";
import { requireManifest } from "../load-manifest.ts";
import { SECTOR_SIZE_OPTION, sectorSizeOf } from "../sector-size.ts";
import { listenForStop } from "../stop-signals.ts";
import type { Verb } from "../verb.ts";
import { wipeClustersOf } from "../wipe-clusters.ts";

export const installVerb: Verb = {
  words: ["install"],
  operands: "[PATH...]",
  minOperands: 0,
  maxOperands: Number.POSITIVE_INFINITY,
  summary: "install machine NAME of the manifest onto blank disks",
  description: `
Install as NAME: verifies every file of the release, plans the layout (see
liken-stick plan), locks the target disks and classifies them again, then writes
the liken claim, the GPT, the ESP, slot A, the crash journal, the state
partition and the storage roles, and last marks the claim complete. It writes
blank disks only. An install that stopped part way is finished by running it
again; on a complete install of the same release it writes nothing.

With --wipe (wipe and reinstall as NAME), disks holding a valid liken claim of
this cluster are erased first. Another cluster's disk is left alone and listed,
unless --wipe-cluster names that cluster. A disk named on the command line that
holds other data refuses the whole run before anything is written.

With --plan FILE (what \`liken-stick plan --json\` printed, reviewed), the install
writes that plan and nothing else: if any disk changed since (another disk in its
place, another size, another claim), it refuses with DiskChanged and writes nothing.

Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops it where running the same install again
finishes it: one line says where it stopped, the status document says phase
Interrupted, and the exit code is 130 (143, 129).

A failed install prints its error and the disks with their verdicts, writes the
status document (phase Failed and a reason) and exits 1. The status document goes
to ${STICK_RUN.installStatus} on the stick; elsewhere, when the first disk
named is an image file, beside it as FILE.install-status.json (no root needed),
and otherwise to ${STICK_RUN.installStatus}.`,
  options: [
    { name: "manifest", type: "string", value: "FILE", summary: "the cluster manifest (required)" },
    {
      name: "as",
      type: "string",
      value: "NAME",
      summary: "the manifest machine to install (required)",
    },
    {
      name: "release",
      type: "string",
      value: "DIR",
      summary: "the release to put into slot A (required)",
    },
    {
      name: "wipe",
      type: "boolean",
      summary: "wipe and reinstall: erase disks that hold this cluster's liken install",
    },
    {
      name: "wipe-cluster",
      type: "string",
      multiple: true,
      value: "NAME",
      summary: "with --wipe, also erase disks of cluster NAME; repeatable",
    },
    {
      name: "status-file",
      type: "string",
      value: "FILE",
      summary: "where the status document goes (see above)",
    },
    {
      name: "plan",
      type: "string",
      value: "FILE",
      summary: "install exactly this plan (plan --json), or refuse if the disks changed",
    },
    SECTOR_SIZE_OPTION,
    { name: "json", type: "boolean", summary: "print the status document as JSON" },
  ],
  async run(args, io) {
    const { manifest: file, as: name, release } = args.options;
    if (typeof file !== "string")
      throw usageError("missing --manifest FILE", "see liken-stick install --help");
    if (typeof name !== "string")
      throw usageError("missing --as NAME", "see liken-stick install --help");
    if (typeof release !== "string")
      throw usageError("missing --release DIR", "see liken-stick install --help");
    const json = args.options.json === true;
    const manifest = await requireManifest(file, "install", io);
    const statusFile =
      typeof args.options["status-file"] === "string"
        ? args.options["status-file"]
        : await defaultStatusFile(args.operands, onLikenStick());
    const wipeClusters = wipeClustersOf(args.options);
    const sectors = sectorSizeOf(args.options);
    const planFile = args.options.plan;
    const confirmed = typeof planFile === "string" ? await readConfirmedPlan(planFile) : undefined;
    const say = json ? () => undefined : io.out;
    // The last status document made: --json prints it even when it could not be written.
    let status: InstallerStatus | undefined;
    const stop = listenForStop();
    try {
      const outcome = await install({
        manifest,
        machine: name,
        releaseDir: release,
        wipe: args.options.wipe === true,
        wipeClusters,
        paths: args.operands,
        ...sectors,
        statusFile,
        ...(confirmed ? { confirmed } : {}),
        interrupt: stop.signal,
        onStatus: (s) => {
          status = s;
        },
        onEvent: (e) => {
          if (e.type === "step") say(`» ${e.what}\n`);
          else if (e.done === e.total) say(`  ${formatSizeShort(e.total)} written and verified\n`);
        },
        recoveryTo: ["console"],
      });
      // Shown once, beside (not in) the status document, which keeps no key.
      if (outcome.result === "installed" && outcome.recoveryKey)
        (json ? io.err : io.out)(recoveryKeyWords(name, outcome.recoveryKey));
      if (json) io.out(`${JSON.stringify(outcome.status, null, 2)}\n`);
      else if (outcome.result === "already-installed") {
        say(
          `${outcome.disk.path} already holds ${name} with release ${manifest.release.version}: nothing to do.\n`,
        );
      } else {
        say(
          `\n${renderLayout(outcome.layout)}Installed as ${name}. Remove the stick and power cycle.\n`,
        );
      }
      return 0;
    } catch (error) {
      if (stop.signal.aborted) {
        // One line: where it stopped, and that the same install finishes it.
        io.err(`liken-stick install: ${oneLine(error)}\n`);
        if (json && status) io.out(`${JSON.stringify(status, null, 2)}\n`);
        // The exit comes once main has printed: reads the stop did not wait for (the
        // release's hashes, from a slow stick) would otherwise hold the process open.
        const code = stop.exitCode();
        setImmediate(() => process.exit(code));
        return code;
      }
      // The operator sees the error line (main prints it) and every disk with its verdict.
      const missing = await releaseMissingDrivers(release).catch(() => undefined);
      // The disks are context for the error thrown below: none listed rather than a second error.
      const disks = await inventoryDisks({
        paths: args.operands,
        missingDrivers: missing,
        ...sectors,
      }).catch(() => []);
      io.err(`${renderDisks(disks)}`);
      if (json && status) io.out(`${JSON.stringify(status, null, 2)}\n`);
      throw error;
    } finally {
      stop.dispose();
    }
  },
};

// What `plan --json` printed ({ ok, layout }), or the layout alone.
async function readConfirmedPlan(file: string): Promise<Layout> {
  const text = await readFile(file, "utf8").catch(() => {
    throw usageError(`cannot read the plan ${file}`, "give the file liken-stick plan --json wrote");
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(`${file} is not JSON`, "give the file liken-stick plan --json wrote");
  }
  const layout = (value as { layout?: unknown }).layout ?? value;
  const l = layout as Partial<Layout>;
  if (typeof l.installId !== "string" || !Array.isArray(l.disks) || typeof l.machine !== "string")
    throw usageError(
      `${file} holds no plan`,
      "give the file liken-stick plan --json wrote for a plan that succeeded",
    );
  return withPartUuids(layout as Layout);
}

// A plan printed before the partitions' `uuid` was named `partUuid`, as inspect names it,
// is the same plan.
function withPartUuids(layout: Layout): Layout {
  return {
    ...layout,
    disks: layout.disks.map((d) => ({
      ...d,
      partitions: d.partitions.map((p) => {
        const { uuid, ...rest } = p as typeof p & { uuid?: string };
        return rest.partUuid === undefined && uuid !== undefined ? { ...rest, partUuid: uuid } : p;
      }),
    })),
  };
}
