// `liken-stick menu [--manifest FILE] [--release DIR] [PATH...]`: what the stick shows.
import { LikenError } from "../../common/errors.ts";
import { STICK_PAYLOAD, STICK_RUN } from "../../formats/stick-payload.ts";
import { terminalSize } from "../../menu/terminal-size.ts";
import { requireManifest } from "../load-manifest.ts";
import type { Io, Verb } from "../verb.ts";

export const menuVerb: Verb = {
  words: ["menu"],
  operands: "[PATH...]",
  minOperands: 0,
  maxOperands: Number.POSITIVE_INFINITY,
  summary: "the stick's menu: install as, wipe and reinstall as, hardware report, shell, power off",
  description: `
The full-screen menu the stick runs on its consoles: install as NAME and wipe
and reinstall as NAME for every machine of the manifest, the hardware report,
a shell and power off. Keyboard only; it has no timeout, so a machine at the
menu waits for a person. A failed install shows its error and the disks and
holds the console; Retry runs the same install again.

On the stick it runs with the payload's manifest and release (the defaults).
PATHs limit it to those block devices or image files. Power off powers the
machine off only when LIKEN_STICK=1 (the stick's /init sets it); elsewhere it
ends the menu with exit code 0. See docs/menu.md.`,
  options: [
    {
      name: "manifest",
      type: "string",
      value: "FILE",
      summary: `the cluster manifest (${STICK_PAYLOAD.manifest})`,
    },
    {
      name: "release",
      type: "string",
      value: "DIR",
      summary: `the release to install (${STICK_PAYLOAD.release})`,
    },
    {
      name: "status-file",
      type: "string",
      value: "FILE",
      summary: `where the installer's status document goes (${STICK_RUN.installStatus})`,
    },
  ],
  async run(args, io) {
    const file = stringOption(args.options.manifest, STICK_PAYLOAD.manifest);
    const releaseDir = stringOption(args.options.release, STICK_PAYLOAD.release);
    const statusFile = stringOption(args.options["status-file"], STICK_RUN.installStatus);
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new LikenError({
        kind: "refused",
        what: "the menu needs a terminal on its input and output",
        hint: "run it on a console, or install with liken-stick install",
      });
    }
    // The terminal is asked its size first: a serial terminal that never answers costs its
    // wait beside the menu's loading and the manifest's reading. The menu is loaded here:
    // blessed is the menu's alone.
    const size = terminalSize(process.stdin, process.stdout);
    const { runMenu } = await import("../../menu/app.ts");
    // The manifest's warnings go on the menu's first screen, not under it.
    const warnings: string[] = [];
    const capture: Io = {
      out: io.out,
      err: (t) => warnings.push(t.replace(/^liken-stick menu: (warning: )?/, "").trimEnd()),
    };
    const manifest = await requireManifest(file, "menu", capture).catch((error: unknown) => {
      for (const line of warnings) io.err(`liken-stick menu: ${line}\n`);
      throw error;
    });
    return runMenu({
      manifest,
      releaseDir,
      paths: args.operands,
      statusFile,
      warnings,
      // On the stick every report shown goes onto the payload too (docs/hwreport.md).
      ...(process.env.LIKEN_STICK === "1" ? { reportDir: STICK_PAYLOAD.reports } : {}),
      onStick: process.env.LIKEN_STICK === "1",
      input: process.stdin,
      output: process.stdout,
      size,
      term: process.env.TERM ?? "",
    });
  },
};

function stringOption(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}
