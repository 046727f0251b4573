// `liken-stick image --manifest FILE --release DIR --out FILE`: builds the stick.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LikenError, usageError } from "../../common/errors.ts";
import { archOf, archOption } from "../arch-option.ts";
import { requireManifest } from "../load-manifest.ts";
import { requireOutFolder } from "../out-folder.ts";
import { verbProgress } from "../progress.ts";
import { machinesOfOtherArch, requireReleaseOf } from "../release-of-manifest.ts";
import type { Verb } from "../verb.ts";

export const imageVerb: Verb = {
  words: ["image"],
  operands: "",
  minOperands: 0,
  maxOperands: 0,
  summary: "build the stick image",
  description: `
Builds the stick: a GPT image whose ESP holds systemd-boot, the kernel and the
stick's initramfs (busybox, Node.js, liken-stick, the installer's tools, every
storage, USB and NIC driver), and whose payload partition (LIKEN-DATA) holds the
manifest, the release and their SHA256SUMS. Also writes FILE.bmap for bmaptool.
Write it with: bmaptool copy FILE /dev/sdX (or dd). Two builds from the same
inputs are byte-identical.

An --out FILE ending in .iso writes one hybrid ISO instead: it boots as a CD or
DVD (El Torito; what a BMC's virtual media presents) and, written with dd, as a
USB disk. The payload is the ISO's filesystem, read-only: the ISO refuses
liken.wipe=1, since it cannot record what it installed.

The stick boots to the menu on the screen and on the first serial port. With
--append "liken.install=NAME" it installs machine NAME unattended and powers off
(add liken.then=reboot to reboot instead, liken.wipe=1 to wipe and reinstall).

With --sign DIR (keys from liken-stick keys) the stick boots with Secure Boot on:
systemd-boot and one unified kernel image (kernel, initramfs and the command
line, --append included) are signed with DIR's db key. On a machine in setup
mode the stick enrolls DIR's PK, KEK and db before its menu or install, and
restarts it with Secure Boot on. db keeps Microsoft's UEFI CA when the manifest's
[secure_boot] says keep_microsoft = true, or, when it says nothing, when the TPM
event log shows option ROMs or cannot be read; keep_microsoft = false with option
ROMs found enrolls nothing. With enroll = "manual" systemd-boot enrolls them
from its menu instead. A manifest with [secure_boot] is refused without --sign.`,
  options: [
    { name: "manifest", type: "string", value: "FILE", summary: "the cluster manifest (required)" },
    {
      name: "release",
      type: "string",
      value: "DIR",
      summary: "the release the stick installs (required)",
    },
    { name: "out", type: "string", value: "FILE", summary: "the image to write (required)" },
    {
      name: "append",
      type: "string",
      value: "WORDS",
      summary: "words added to the stick's kernel command line",
    },
    {
      name: "sign",
      type: "string",
      value: "DIR",
      summary: "sign for Secure Boot with the keys in DIR, and enroll them in setup mode",
    },
    archOption("the machines it installs: the release's arch, which this only confirms"),
  ],
  async run(args, io) {
    const { manifest, release, out, append, sign } = args.options;
    if (typeof manifest !== "string")
      throw usageError("missing --manifest FILE", "see liken-stick image --help");
    if (typeof release !== "string")
      throw usageError("missing --release DIR", "see liken-stick image --help");
    if (typeof out !== "string")
      throw usageError("missing --out FILE", "see liken-stick image --help");
    const cluster = await requireManifest(manifest, "image", io);
    const releaseInfo = await requireReleaseOf(cluster, manifest, release, archOf(args.options));
    await requireOutFolder(out, "image");
    if (cluster.secureBoot && typeof sign !== "string")
      throw new LikenError({
        kind: "refused",
        what: `${manifest} asks for Secure Boot ([secure_boot]) and the image would not be signed`,
        hint: "give --sign DIR with the cluster's keys, made by liken-stick keys --out DIR",
      });
    const keys =
      typeof sign === "string"
        ? await (await import("../../image-build/secure-boot/keys.ts")).readKeys(sign)
        : undefined;
    const settings = cluster.secureBoot ?? { keepMicrosoft: undefined, enroll: "force" as const };
    const { buildStick } = await import("../../image-build/stick/build-stick.ts");
    const { buildEpoch } = await import("../../image-build/epoch.ts");
    const workDir = await mkdtemp(join(tmpdir(), "liken-image-"));
    const progress = verbProgress("image", io);
    try {
      const words = typeof append === "string" ? append.split(/\s+/).filter(Boolean) : [];
      await buildStick({
        manifest,
        releaseDir: release,
        out,
        append: words,
        ...(keys ? { sign: { keys, ...settings } } : {}),
        epoch: buildEpoch(),
        workDir,
        progress,
      });
    } finally {
      progress.end();
      await rm(workDir, { recursive: true, force: true });
    }
    io.out(
      out.endsWith(".iso")
        ? `Built the ${releaseInfo.arch} stick as an ISO, ${out}.\n`
        : `Built the ${releaseInfo.arch} stick ${out} (and ${out}.bmap).\n`,
    );
    const others = machinesOfOtherArch(cluster, releaseInfo);
    if (others) io.out(`${others}\n`);
    return 0;
  },
};
