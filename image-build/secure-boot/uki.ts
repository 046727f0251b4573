// A unified kernel image: systemd's EFI stub (systemd-stub(7), from the pinned
// systemd-boot-efi) with the kernel, the initramfs, the command line and an os-release
// added as sections, so one signature covers all four. Debian 12 has no ukify; the stub's
// manual describes these sections, and formats/pe.ts adds them the way objcopy would.
import { readFile } from "node:fs/promises";
import { addSections } from "../../formats/pe.ts";
import type { Signer } from "../../formats/pkcs7.ts";
import type { UnpackedInputs } from "../unpacked.ts";
import { signPe } from "./sign-pe.ts";

export interface UkiParts {
  readonly stub: Buffer;
  readonly kernel: Buffer;
  readonly initrd: Buffer;
  /** The whole kernel command line: with Secure Boot on, the stub ignores any other. */
  readonly cmdline: string;
  /** os-release text: systemd-boot shows its PRETTY_NAME. */
  readonly osRelease: string;
}

export function buildUki(p: UkiParts): Buffer {
  // The sections in the order and address order the stub's manual gives, .linux before .initrd.
  return addSections(p.stub, [
    { name: ".osrel", data: Buffer.from(p.osRelease) },
    { name: ".cmdline", data: Buffer.from(`${p.cmdline}\0`) },
    { name: ".linux", data: p.kernel },
    { name: ".initrd", data: p.initrd },
  ]);
}

/** What a unified kernel image holds besides the pinned kernel and stub. */
export interface UkiImage {
  readonly initrd: Buffer;
  readonly cmdline: string;
  readonly osRelease: string;
}

/** A unified kernel image on the pinned kernel and systemd's stub, unsigned. */
export async function pinnedUki(inputs: UnpackedInputs, image: UkiImage): Promise<Buffer> {
  return buildUki({
    stub: await readFile(inputs.efiStub),
    kernel: await readFile(inputs.vmlinuz),
    ...image,
  });
}

/** systemd-boot and a unified kernel image on the pinned kernel, both signed with db. */
export async function signedBootFiles(
  inputs: UnpackedInputs,
  image: UkiImage,
  db: Signer,
): Promise<{ readonly loader: Buffer; readonly uki: Buffer }> {
  const uki = await pinnedUki(inputs, image);
  return { loader: signPe(await readFile(inputs.systemdBoot), db), uki: signPe(uki, db) };
}
