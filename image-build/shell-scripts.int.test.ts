// Every shell script the project writes or hands to a shell, rendered by the functions the
// build calls and checked by shellcheck. The inits run as PID 1 before any log exists, so a
// quoting slip shows up as a machine that does not boot; this is where it shows up first.
// A finding is fixed in the generator, or named: inline with `# shellcheck disable=SCxxxx`
// and its reason, or below in `allowed` when it belongs to one variant of a script.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { SHELL_ON_TTY } from "../menu/system.ts";
import { productionFiles } from "../test/code-shape.ts";
import { faultHealthChecks, faultRootInit, RELEASE_FAULTS } from "../testing/release-variant.ts";
import {
  formatFinding,
  type ShellcheckFinding,
  type ShellDialect,
  shellcheck,
} from "../testing/shellcheck.ts";
import { tapIntoNamespaceScript } from "../tools/ip.ts";
import { UDHCPC_SCRIPT_TEXT } from "../tools/udhcpc.ts";
import { KEXEC_SCRIPT } from "./netboot/tinkerbell.ts";
import { nodeReadAhead } from "./node-read-ahead.ts";
import { releaseInit } from "./release/init-script.ts";
import { ISO_VOLUME_LABEL, STICK_GUIDS, stickInitrdModules } from "./stick/build-stick.ts";
import { stickInitrdInit } from "./stick/initrd-init.ts";
import type { StickMedium } from "./stick/medium-sh.ts";
import { stickCommand, stickRootInit } from "./stick/root-init.ts";

interface Script {
  readonly name: string;
  /** The production file that spells it, for the completeness check below. */
  readonly source: string;
  readonly text: string;
  /** dash for every script busybox runs (testing/shellcheck.ts says why). */
  readonly shell: ShellDialect;
  /** Findings this variant has on purpose, by code, each with its reason. */
  readonly allowed?: Readonly<Record<number, string>>;
}

const MEDIA: readonly StickMedium[] = [
  { kind: "stick", payloadPartUuid: STICK_GUIDS.payload.toLowerCase() },
  { kind: "iso", volumeLabel: ISO_VOLUME_LABEL },
  { kind: "net" },
];

// Where a test release's faults spell their shell (the init's lines, a health check).
const TEST_RELEASES = "testing/release-variant.ts";

async function scripts(): Promise<Script[]> {
  // The host's Node.js stands in for the pinned one: the same ELF layout, other offsets.
  const readAhead = await nodeReadAhead(process.execPath);
  const verity = { rootHash: "5f".repeat(32), dataBlocks: 24_577 };
  const stickInits = MEDIA.map((medium) => ({
    name: `the stick's initramfs /init (${medium.kind})`,
    source: "image-build/stick/initrd-init.ts",
    text: stickInitrdInit({
      medium,
      modules: stickInitrdModules(medium),
      root: { path: "stick-root.img", ...verity, fstype: "squashfs" },
      releaseRoot: { path: "release/rootfs.img", ...verity, fstype: "erofs" },
      checksumsFile: "/etc/liken/payload.sha256",
      nodeReadAhead: readAhead,
    }),
    shell: "dash" as const,
  }));
  const rootInits = [null, ...RELEASE_FAULTS].map((fault) => ({
    name: `a release root's /sbin/init (fault ${fault ?? "none"})`,
    source: fault ? TEST_RELEASES : "image-build/release/root-init.ts",
    text: faultRootInit(fault),
    shell: "dash" as const,
    allowed:
      fault === "root"
        ? { 2317: "the fault's `exit 1` leaves the rest unreached, which is the fault" }
        : undefined,
  }));
  const checks = [null, ...RELEASE_FAULTS].flatMap((fault) =>
    faultHealthChecks(fault).map(([file, text]) => ({
      name: `a release's health.d/${file} (fault ${fault ?? "none"})`,
      source: file.endsWith("-fault") ? TEST_RELEASES : "image-build/release/build-release.ts",
      text,
      shell: "dash" as const,
    })),
  );
  return [
    ...stickInits,
    {
      name: "the stick root's /init",
      source: "image-build/stick/root-init.ts",
      text: stickRootInit(),
      shell: "dash",
    },
    {
      name: "the stick's /usr/bin/liken-stick",
      source: "image-build/stick/root-init.ts",
      text: stickCommand(),
      shell: "dash",
    },
    {
      name: "a release's initramfs /init",
      source: "image-build/release/init-script.ts",
      text: releaseInit("1.4.2", ["virtio_pci", "virtio_blk", "nvme", "ahci", "sd_mod"], readAhead),
      shell: "dash",
    },
    ...rootInits,
    ...checks,
    {
      name: "udhcpc's lease script (the stick's root and its network initramfs)",
      source: "tools/udhcpc.ts",
      text: UDHCPC_SCRIPT_TEXT,
      shell: "dash",
    },
    {
      name: "the menu's shell on its terminal (sh -c)",
      source: "menu/system.ts",
      text: SHELL_ON_TTY,
      shell: "dash",
      allowed: { 2094: "$1 is a terminal, read and written at once by the shell on it" },
    },
    {
      // Alpine's /bin/sh is busybox's.
      name: "the Tinkerbell template's kexec action (sh -c)",
      source: "image-build/netboot/tinkerbell.ts",
      text: KEXEC_SCRIPT,
      shell: "dash",
    },
    {
      // The host's /bin/sh (dash on Debian), which QEMU runs for a new tap.
      name: "the netboot tests' tap script",
      source: "tools/ip.ts",
      text: tapIntoNamespaceScript("liken-net-1", "br-liken"),
      shell: "dash",
    },
  ];
}

function unexpected(s: Script, findings: readonly ShellcheckFinding[]): string[] {
  return findings
    .filter((f) => s.allowed?.[f.code] === undefined)
    .map((f) => formatFinding(s.name, f));
}

// A #! line of a shell, or a script handed to `/bin/sh -c`.
const SPELLS_SCRIPT = /#!\/bin\/(busybox )?sh\b|"\/bin\/sh",\s*\[?\s*"-c"/;

async function filesSpellingScripts(): Promise<string[]> {
  const found: string[] = [];
  for (const path of productionFiles()) {
    if (SPELLS_SCRIPT.test(await readFile(path, "utf8"))) found.push(path);
  }
  return found.sort();
}

describe("the generated shell scripts", async () => {
  const all = await scripts();

  it.concurrent.each(all)("$name passes shellcheck", async (s) => {
    const findings = await shellcheck(s.text, s.shell);
    expect(unexpected(s, findings)).toEqual([]);
    // An exception whose finding is gone is stale: it goes too.
    const found = new Set(findings.map((f) => f.code));
    expect(Object.keys(s.allowed ?? {}).filter((code) => !found.has(Number(code)))).toEqual([]);
  });

  it("include every production file that spells a shell script", async () => {
    const production = new Set(productionFiles());
    const covered = [...new Set(all.map((s) => s.source))].filter((f) => production.has(f)).sort();
    expect(await filesSpellingScripts()).toEqual(covered);
  });
});
