// `liken-stick netboot --manifest FILE --release DIR --out DIR --url URL`: the stick as
// files for a boot server.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { usageError } from "../../common/errors.ts";
import { archOf, archOption } from "../arch-option.ts";
import { requireManifest } from "../load-manifest.ts";
import { requireOutFolder } from "../out-folder.ts";
import { verbProgress } from "../progress.ts";
import { machinesOfOtherArch, requireReleaseOf } from "../release-of-manifest.ts";
import type { Verb } from "../verb.ts";

const FORMATS = ["dnsmasq", "matchbox", "tinkerbell"] as const;

export const netbootVerb: Verb = {
  words: ["netboot"],
  operands: "",
  minOperands: 0,
  maxOperands: 0,
  summary: "write the stick as files for a boot server (PXE, iPXE, UEFI HTTP boot)",
  description: `
Writes the stick as plain files for a boot server into the folder --out: the
kernel (vmlinuz), the stick's initramfs (initrd.img), the payload (payload/: the
manifest, the release and the stick's root), boot.ipxe (an iPXE script whose
URLs are relative to its own), ipxe.efi (Debian's iPXE for UEFI PXE clients) and
dnsmasq.conf (UEFI PXE and UEFI HTTP boot). Serve the folder over HTTP at --url.

The machine's initramfs gets an address by DHCP, fetches the payload from
liken.payload=URL (boot.ipxe passes the folder's), checks every file against the
hashes built into the initramfs, and then behaves as from a stick. A download
that receives nothing for a minute is retried, 10 s after the first failure, the
wait doubling to 2 minutes; a file that does not match its hash holds the
console. With --append "liken.install=auto" each machine installs as the one
whose [[machines]] match names its MAC, serial or UUID.

--format matchbox also writes matchbox/ (a profile per machine, a group per MAC);
--format tinkerbell writes tinkerbell/ (Hardware per machine and a Template).
With --sign DIR one signed unified kernel image (liken.efi) replaces the kernel,
the initramfs and iPXE, the payload's URL inside its signed command line; the
machines' firmware must already trust DIR's db key. The network cannot record
what it installed: liken.wipe=1 is refused.`,
  options: [
    { name: "manifest", type: "string", value: "FILE", summary: "the cluster manifest (required)" },
    {
      name: "release",
      type: "string",
      value: "DIR",
      summary: "the release the machines install (required)",
    },
    { name: "out", type: "string", value: "DIR", summary: "the folder to write (required)" },
    {
      name: "url",
      type: "string",
      value: "URL",
      summary: "where the folder is served, e.g. http://10.0.0.1/liken/ (required)",
    },
    {
      name: "append",
      type: "string",
      value: "WORDS",
      summary: "words added to the kernel command line (liken.install=auto, liken.report=URL)",
    },
    {
      name: "format",
      type: "string",
      value: "NAME",
      summary: "also write the configuration of: dnsmasq (default), matchbox, tinkerbell",
    },
    archOption("the machines it boots: the release's arch, which this only confirms"),
    {
      name: "sign",
      type: "string",
      value: "DIR",
      summary: "one unified kernel image signed with the keys in DIR (Secure Boot)",
    },
  ],
  async run(args, io) {
    const { manifest, release, out, url, append, format, sign } = args.options;
    const help = "see liken-stick netboot --help";
    if (typeof manifest !== "string") throw usageError("missing --manifest FILE", help);
    if (typeof release !== "string") throw usageError("missing --release DIR", help);
    if (typeof out !== "string") throw usageError("missing --out DIR", help);
    if (typeof url !== "string" || !/^https?:\/\/[^/\s]+/.test(url))
      throw usageError("missing --url URL (http://SERVER/PATH/, where the folder is served)", help);
    const chosen = typeof format === "string" ? format : "dnsmasq";
    if (!(FORMATS as readonly string[]).includes(chosen))
      throw usageError(`--format ${chosen} is not one of ${FORMATS.join(", ")}`, help);
    const cluster = await requireManifest(manifest, "netboot", io);
    const releaseInfo = await requireReleaseOf(cluster, manifest, release, archOf(args.options));
    await requireOutFolder(out, "netboot");
    const keys =
      typeof sign === "string"
        ? await (await import("../../image-build/secure-boot/keys.ts")).readKeys(sign)
        : undefined;
    const { buildNetboot } = await import("../../image-build/netboot/build-netboot.ts");
    const { buildEpoch } = await import("../../image-build/epoch.ts");
    const workDir = await mkdtemp(join(tmpdir(), "liken-netboot-"));
    const progress = verbProgress("netboot", io);
    try {
      await buildNetboot({
        manifest,
        cluster,
        releaseDir: release,
        out,
        url,
        append: typeof append === "string" ? append.split(/\s+/).filter(Boolean) : [],
        format: chosen as (typeof FORMATS)[number],
        ...(keys ? { sign: keys } : {}),
        epoch: buildEpoch(),
        workDir,
        progress,
      });
    } finally {
      progress.end();
      await rm(workDir, { recursive: true, force: true });
    }
    io.out(`Wrote the ${releaseInfo.arch} netboot folder ${out}; serve it at ${url}.\n`);
    const others = machinesOfOtherArch(cluster, releaseInfo);
    if (others) io.out(`${others}\n`);
    return 0;
  },
};
