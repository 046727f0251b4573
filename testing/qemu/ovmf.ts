// OVMF, the UEFI firmware the VMs boot, found through QEMU's firmware descriptors: OVMF for
// amd64's q35, AAVMF (edk2's ArmVirtQemu, Debian's qemu-efi-aarch64) for arm64's virt.
import { constants } from "node:fs";
import { access, readdir, readFile, realpath } from "node:fs/promises";
import { join } from "node:path";
import type { Arch } from "../../common/arch.ts";

export const FIRMWARE_DESCRIPTORS = "/usr/share/qemu/firmware";

/** OVMF as found through QEMU's firmware descriptors (docs/interop/firmware.json). */
export interface Ovmf {
  readonly code: string;
  /** The template each VM copies for its own variables. */
  readonly varsTemplate: string;
  readonly descriptor: string;
  /** A Secure Boot build that needs SMM (OVMF's; AAVMF guards its variables without it). */
  readonly smm: boolean;
  /** The descriptors passed over, and why. */
  readonly skipped: readonly { readonly descriptor: string; readonly reason: string }[];
}

interface Descriptor {
  "interface-types"?: string[];
  mapping?: {
    device?: string;
    executable?: { filename?: string; format?: string };
    "nvram-template"?: { filename?: string; format?: string };
  };
  targets?: { architecture?: string; machines?: string[] }[];
  features?: string[];
}

/**
 * Which OVMF build: `plain` (no Secure Boot), `setup-mode` (Secure Boot, no keys enrolled:
 * what a machine whose keys were cleared looks like, where liken's stick enrolls its own),
 * `microsoft` (Secure Boot on with Microsoft's and the distribution's keys, as shipped).
 */
export type OvmfKind = "plain" | "setup-mode" | "microsoft";

/** Each arch's firmware: the board its descriptors name, and what a Secure Boot build says. */
const FIRMWARE: Readonly<
  Record<
    Arch,
    {
      readonly target: string;
      readonly machine: string;
      readonly secure: readonly string[];
      readonly package: string;
      /** What the error says none of was found. */
      readonly name: string;
    }
  >
> = {
  amd64: {
    target: "x86_64",
    machine: "pc-q35",
    secure: ["secure-boot", "requires-smm"],
    package: "ovmf",
    name: "OVMF firmware for q35",
  },
  // Arm has no SMM: AAVMF's Secure Boot build guards its variables in the firmware only, and
  // a guest kernel could write the flash itself (qemu-efi-aarch64's README.Debian).
  arm64: {
    target: "aarch64",
    machine: "virt",
    secure: ["secure-boot"],
    package: "qemu-efi-aarch64",
    name: "AAVMF firmware for virt",
  },
};

function features(kind: OvmfKind, arch: Arch): { need: string[]; refuse: string[] } {
  const secure = FIRMWARE[arch].secure;
  switch (kind) {
    case "plain":
      return { need: [], refuse: [...secure, "enrolled-keys"] };
    case "setup-mode":
      return { need: [...secure], refuse: ["enrolled-keys"] };
    case "microsoft":
      return { need: [...secure, "enrolled-keys"], refuse: [] };
  }
}

/**
 * Why descriptor `d` does not fit a VM of `arch` (q35 for amd64, virt for arm64) and
 * `kind`, or undefined when it fits. Pure: the file checks come after.
 */
export function ovmfMismatch(
  d: Descriptor,
  kind: OvmfKind = "plain",
  arch: Arch = "amd64",
): string | undefined {
  if (!d["interface-types"]?.includes("uefi")) return "not UEFI";
  const { target, machine } = FIRMWARE[arch];
  const fits = d.targets?.some(
    (t) => t.architecture === target && (t.machines ?? []).some((m) => m.startsWith(machine)),
  );
  if (!fits) return `not for ${target} ${machine.replace("pc-", "")} machines`;
  if (d.mapping?.device !== "flash")
    return `mapped as ${d.mapping?.device ?? "nothing"}, not flash`;
  const wanted = features(kind, arch);
  const has = d.features ?? [];
  const unwanted = has.filter((f) => wanted.refuse.includes(f));
  if (unwanted.length > 0) return `has ${unwanted.join(", ")} (not ${kind})`;
  const lacking = wanted.need.filter((f) => !has.includes(f));
  if (lacking.length > 0) return `lacks ${lacking.join(", ")} (not ${kind})`;
  if (d.mapping.executable?.format !== "raw" || !d.mapping.executable.filename) {
    return "its code is not a raw file";
  }
  if (d.mapping["nvram-template"]?.format !== "raw" || !d.mapping["nvram-template"].filename) {
    return "no raw variable store template";
  }
  return undefined;
}

/**
 * The firmware of `arch` and `kind` from QEMU's firmware descriptors in priority order
 * (file name order; for plain amd64 on Debian 12 that is 60-edk2-x86_64.json, after
 * skipping the two Secure Boot ones). Throws with every reason when none fits.
 *
 * A `setup-mode` build no descriptor names may still be there: a plain descriptor whose code
 * is the very file a Secure Boot descriptor names is that Secure Boot build, and its empty
 * variable store is setup mode. Debian 12's qemu-efi-aarch64 (2022.11-6+deb12u2) is so: its
 * 50-edk2-aarch64-secure.json names AAVMF_CODE.secboot.fd, which it does not ship, and
 * AAVMF_CODE.ms.fd is a link to the plain AAVMF_CODE.fd, so plain AAVMF with its empty
 * AAVMF_VARS.fd enforces Secure Boot once a PK is enrolled.
 */
export async function requireOvmf(
  dir = FIRMWARE_DESCRIPTORS,
  kind: OvmfKind = "plain",
  arch: Arch = "amd64",
): Promise<Ovmf> {
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => n.endsWith(".json"))
    .sort();
  const skipped: { descriptor: string; reason: string }[] = [];
  const read: { descriptor: string; d: Descriptor }[] = [];
  for (const name of names) {
    const descriptor = join(dir, name);
    try {
      read.push({ descriptor, d: JSON.parse(await readFile(descriptor, "utf8")) as Descriptor });
    } catch (error) {
      skipped.push({ descriptor, reason: `unreadable: ${(error as Error).message}` });
    }
  }
  const smm = FIRMWARE[arch].secure.includes("requires-smm") && kind !== "plain";
  const own = await firstReadable(read, kind, arch);
  skipped.push(...own.skipped);
  if (own.found) return { ...own.found, skipped, smm };
  if (kind === "setup-mode") {
    const same = await plainSecureBootBuild(read, arch);
    if (same) return { ...same, skipped, smm };
  }
  const why = skipped.map((s) => `${s.descriptor}: ${s.reason}`).join("; ");
  const { name, package: pkg } = FIRMWARE[arch];
  throw new Error(
    `no ${name} (${kind}) in ${dir}${why ? ` (${why})` : ""}; install the Debian package ${pkg}`,
  );
}

type Found = Pick<Ovmf, "code" | "varsTemplate" | "descriptor">;

/** The first descriptor of `kind` whose files can be read, and why the others did not fit. */
async function firstReadable(
  read: readonly { descriptor: string; d: Descriptor }[],
  kind: OvmfKind,
  arch: Arch,
): Promise<{ found?: Found; skipped: { descriptor: string; reason: string }[] }> {
  const skipped: { descriptor: string; reason: string }[] = [];
  for (const { descriptor, d } of read) {
    const mismatch = ovmfMismatch(d, kind, arch);
    if (mismatch) {
      skipped.push({ descriptor, reason: mismatch });
      continue;
    }
    const code = d.mapping?.executable?.filename ?? "";
    const varsTemplate = d.mapping?.["nvram-template"]?.filename ?? "";
    const missing: string[] = [];
    for (const file of [code, varsTemplate]) {
      if (!(await isReadable(file))) missing.push(file);
    }
    if (missing.length > 0) {
      skipped.push({ descriptor, reason: `cannot read ${missing.join(", ")}` });
      continue;
    }
    return { found: { code, varsTemplate, descriptor }, skipped };
  }
  return { skipped };
}

/**
 * The plain build with its empty variables when its code is the same file as the code of a
 * Secure Boot build with enrolled keys: that is setup mode. Undefined otherwise.
 */
async function plainSecureBootBuild(
  read: readonly { descriptor: string; d: Descriptor }[],
  arch: Arch,
): Promise<Found | undefined> {
  const plain = (await firstReadable(read, "plain", arch)).found;
  const enrolled = (await firstReadable(read, "microsoft", arch)).found;
  if (!plain || !enrolled) return undefined;
  const [a, b] = await Promise.all([realpath(plain.code), realpath(enrolled.code)]);
  return a === b ? plain : undefined;
}

async function isReadable(path: string): Promise<boolean> {
  return access(path, constants.R_OK).then(
    () => true,
    () => false,
  );
}
