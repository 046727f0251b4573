// `liken-stick netboot`: the stick as plain files for a boot server (docs/image.md,
// Netboot): the kernel, the stick's initramfs (built to fetch its payload over HTTP, with
// every payload file's hash inside it), the payload folder, boot.ipxe, iPXE for the PXE
// clients and a dnsmasq configuration; signed, one unified kernel image instead of the
// kernel, the initramfs and iPXE, with the payload's URL in its signed command line.
import { copyFile, cp, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { LikenError } from "../../common/errors.ts";
import { NO_PROGRESS, numberedSteps, type Progress } from "../../common/progress.ts";
import { requireRelease } from "../../formats/release.ts";
import type { Manifest } from "../../manifest/types.ts";
import type { KeySet } from "../secure-boot/keys.ts";
import { pinnedUki, signedBootFiles } from "../secure-boot/uki.ts";
import {
  buildStickParts,
  requireNoWipe,
  STICK_PARTS_STEPS,
  stickCmdline,
} from "../stick/build-stick.ts";
import { bootIpxe, IPXE_BOOTIF, NETBOOT_INITRD, NETBOOT_KERNEL } from "./boot-ipxe.ts";
import { dnsmasqConf } from "./dnsmasq-conf.ts";
import { matchboxFiles } from "./matchbox.ts";
import type { ExportFile, NetbootTarget } from "./netboot-target.ts";
import { tinkerbellFiles } from "./tinkerbell.ts";

export type NetbootFormat = "dnsmasq" | "matchbox" | "tinkerbell";

export interface NetbootOptions {
  readonly manifest: string;
  /** The manifest, parsed: its cluster and the machines' MACs for the exports. */
  readonly cluster: Manifest;
  readonly releaseDir: string;
  /** The folder to write. */
  readonly out: string;
  /** Where the folder will be served: http://10.0.0.1/liken/ */
  readonly url: string;
  readonly append?: readonly string[];
  /** Signed for Secure Boot with these keys' db. */
  readonly sign?: KeySet;
  readonly format: NetbootFormat;
  readonly epoch: number;
  readonly workDir: string;
  /** What the build is doing, for a person waiting on it. */
  readonly progress?: Progress;
}

/** The payload folder in a netboot folder; liken.payload names its URL. */
export const NETBOOT_PAYLOAD = "payload";
/** The iPXE the PXE clients load, and the signed unified kernel image. */
export const NETBOOT_IPXE = "ipxe.efi";
export const NETBOOT_UKI = "liken.efi";

// What marks a folder as a netboot folder this verb may write over.
const MARKERS = ["boot.ipxe", NETBOOT_UKI];

export async function buildNetboot(o: NetbootOptions): Promise<void> {
  requireNoWipe(o.append, "the network");
  if (o.sign && o.format !== "dnsmasq")
    throw new LikenError({
      kind: "refused",
      what: `${o.format} boots machines through iPXE, which Secure Boot does not run, and the build is signed`,
      hint: "build without --sign for the engine, or serve liken.efi by UEFI HTTP boot with the dnsmasq configuration",
    });
  const { arch } = await requireRelease(o.releaseDir);
  if (o.format !== "dnsmasq" && arch !== "amd64")
    throw new LikenError({
      kind: "refused",
      what: `${o.format} boots machines through iPXE, which Debian builds for amd64 only, and the release is for ${arch} machines`,
      hint: "build the dnsmasq folder (--format dnsmasq): its firmware loads liken.efi by UEFI PXE or HTTP boot",
    });
  if (o.format !== "dnsmasq" && machinesByMac(o.cluster).length === 0)
    throw new LikenError({
      kind: "refused",
      what: `no machine of ${o.manifest} names a MAC in its match, and ${o.format} selects machines by MAC`,
      hint: 'add match = { mac = ["..."] } to each machine in the manifest',
    });
  await requireWritable(o.out);
  const url = o.url.endsWith("/") ? o.url : `${o.url}/`;
  const step = numberedSteps(o.progress ?? NO_PROGRESS, STICK_PARTS_STEPS + 1);
  const { inputs, payload, initrd } = await buildStickParts(
    {
      manifest: o.manifest,
      releaseDir: o.releaseDir,
      out: o.out,
      ...(o.append ? { append: o.append } : {}),
      // Nothing is enrolled over the network: only the release's signer is checked.
      ...(o.sign ? { sign: { keys: o.sign, keepMicrosoft: true, enroll: "manual" as const } } : {}),
      epoch: o.epoch,
      workDir: o.workDir,
      ...(o.progress ? { progress: o.progress } : {}),
    },
    { kind: "net" },
    step,
  );
  // Debian builds iPXE for x86-64 only: an arm64 firmware loads the unified kernel image,
  // signed or not, as a signed amd64 one does.
  const ipxe = o.sign ? undefined : inputs.ipxe;
  const uki = ipxe === undefined;
  step(
    uki
      ? `writing ${o.out}: the payload, liken.efi${o.sign ? " signed" : ""}, dnsmasq.conf`
      : `writing ${o.out}: the payload, the kernel, the initramfs, iPXE, dnsmasq.conf`,
  );
  const staging = `${o.out}.partial`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await cp(payload, join(staging, NETBOOT_PAYLOAD), { recursive: true });
  const cmdline = stickCmdline(inputs.arch, o.append);
  const title = `liken netboot: cluster ${o.cluster.cluster}, release ${o.cluster.release.version}`;
  if (ipxe === undefined) {
    // The payload's URL is fixed at build time: the firmware runs the image as it is.
    const image = {
      initrd: await readFile(initrd),
      cmdline: `${cmdline} liken.payload=${url}${NETBOOT_PAYLOAD}`,
      osRelease: 'ID=liken\nNAME=liken\nPRETTY_NAME="liken netboot"\n',
    };
    const bytes = o.sign
      ? (await signedBootFiles(inputs, image, o.sign.signers.db)).uki
      : await pinnedUki(inputs, image);
    await writeFile(join(staging, NETBOOT_UKI), bytes);
  } else {
    await copyFile(inputs.vmlinuz, join(staging, NETBOOT_KERNEL));
    await copyFile(initrd, join(staging, NETBOOT_INITRD));
    await copyFile(ipxe, join(staging, NETBOOT_IPXE));
    await writeFile(join(staging, "boot.ipxe"), bootIpxe({ title, cmdline }));
  }
  await writeFile(
    join(staging, "dnsmasq.conf"),
    dnsmasqConf({
      title,
      url,
      tftpRoot: resolve(o.out),
      firmwareLoads: uki ? NETBOOT_UKI : NETBOOT_IPXE,
      ipxe: !uki,
      arch: inputs.arch,
    }),
  );
  for (const file of exportFiles(o, url, cmdline)) {
    await mkdir(dirname(join(staging, file.path)), { recursive: true });
    await writeFile(join(staging, file.path), file.text);
  }
  await rm(o.out, { recursive: true, force: true });
  await rename(staging, o.out);
}

function exportFiles(o: NetbootOptions, url: string, cmdline: string): ExportFile[] {
  if (o.format === "dnsmasq") return [];
  const args = [...cmdline.split(" "), `liken.payload=${url}${NETBOOT_PAYLOAD}`];
  const target: NetbootTarget = {
    cluster: o.cluster.cluster,
    kernelUrl: `${url}${NETBOOT_KERNEL}`,
    initrdUrl: `${url}${NETBOOT_INITRD}`,
    ipxeUrl: `${url}boot.ipxe`,
    // matchbox writes the arguments into an iPXE script, which fills in the NIC it booted from.
    args: o.format === "matchbox" ? [...args, IPXE_BOOTIF] : args,
    machines: machinesByMac(o.cluster),
  };
  return o.format === "matchbox" ? matchboxFiles(target) : tinkerbellFiles(target);
}

/** The machines whose match names MACs: the engines select machines by MAC. */
function machinesByMac(cluster: Manifest): NetbootTarget["machines"] {
  return cluster.machines
    .filter((m) => (m.match?.mac ?? []).length > 0)
    .map((m) => ({ name: m.name, macs: m.match?.mac ?? [] }));
}

// The verb writes over an earlier netboot folder, never over a folder of something else.
async function requireWritable(out: string): Promise<void> {
  // A folder that is not there yet is written from scratch.
  const names = await readdir(out).catch(() => [] as string[]);
  if (names.length === 0 || names.some((n) => MARKERS.includes(n))) return;
  throw new LikenError({
    kind: "refused",
    what: `${out} holds files that are not a netboot folder (${names.slice(0, 3).join(", ")})`,
    hint: "give --out a new or empty folder, or an earlier netboot folder to replace",
  });
}
