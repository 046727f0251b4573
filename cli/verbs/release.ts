// `liken-stick release --version V --out DIR`: builds an installable release.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ARCH } from "../../common/arch.ts";
import { usageError } from "../../common/errors.ts";
import { archOf, archOption } from "../arch-option.ts";
import { requireOutFolder } from "../out-folder.ts";
import { verbProgress } from "../progress.ts";
import type { Verb } from "../verb.ts";

export const releaseVerb: Verb = {
  words: ["release"],
  operands: "",
  minOperands: 0,
  maxOperands: 0,
  summary: "build an installable release",
  description: `
Builds release V into DIR from the pinned Debian inputs (image-build/packages.lock.json):
vmlinuz, initrd.img (finds the slot, checks it with dm-verity and switches to
its root), rootfs.img (erofs with its verity hash tree: the boot agent, Node.js,
the root's init and health checks), systemd-bootx64.efi, boot-modules.json and
release.toml with the size and sha256 of each file and the verity root hash. Two builds from the same inputs are
byte-identical (SOURCE_DATE_EPOCH sets every timestamp).

With --sign DIR (keys from liken-stick keys) the release boots with Secure Boot
on: liken.efi, a unified kernel image holding the kernel, the initramfs and the
command line with the root's verity hash, and systemd-bootx64.efi are signed
with DIR's db key; the installer copies them unchanged and the boot entries
start liken.efi, so nothing on the disk changes what boots without breaking
the signature.`,
  options: [
    {
      name: "version",
      type: "string",
      value: "V",
      summary: "the release's version, e.g. 1.0.0 (required)",
    },
    { name: "out", type: "string", value: "DIR", summary: "where to write the release (required)" },
    archOption("the machines it boots: amd64 (the default) or arm64"),
    {
      name: "sign",
      type: "string",
      value: "DIR",
      summary: "sign for Secure Boot with the keys in DIR (liken-stick keys)",
    },
  ],
  async run(args, io) {
    const { version, out, sign } = args.options;
    if (typeof version !== "string")
      throw usageError("missing --version V", "see liken-stick release --help");
    if (typeof out !== "string")
      throw usageError("missing --out DIR", "see liken-stick release --help");
    const arch = archOf(args.options) ?? DEFAULT_ARCH;
    await requireOutFolder(out, "release");
    const keys =
      typeof sign === "string"
        ? await (await import("../../image-build/secure-boot/keys.ts")).readKeys(sign)
        : undefined;
    const { buildRelease } = await import("../../image-build/release/build-release.ts");
    const { buildEpoch } = await import("../../image-build/epoch.ts");
    const workDir = await mkdtemp(join(tmpdir(), "liken-release-"));
    const progress = verbProgress("release", io);
    try {
      await buildRelease({
        version,
        out,
        arch,
        ...(keys ? { sign: keys } : {}),
        epoch: buildEpoch(),
        workDir,
        progress,
      });
    } finally {
      progress.end();
      await rm(workDir, { recursive: true, force: true });
    }
    io.out(
      `Built release ${version} for ${arch} in ${out}${keys ? `, signed with ${sign}/db.key` : ""}.\n`,
    );
    return 0;
  },
};
