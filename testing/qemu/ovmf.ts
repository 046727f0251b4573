// OVMF, the UEFI firmware the VMs boot, found through QEMU's firmware descriptors.
import { constants } from "node:fs";
import { access, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

export const FIRMWARE_DESCRIPTORS = "/usr/share/qemu/firmware";

/** OVMF as found through QEMU's firmware descriptors (docs/interop/firmware.json). */
export interface Ovmf {
  readonly code: string;
  /** The template each VM copies for its own variables. */
  readonly varsTemplate: string;
  readonly descriptor: string;
  /** A Secure Boot build, which needs SMM. */
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

const SECURE = ["secure-boot", "requires-smm"];
const FEATURES: Readonly<Record<OvmfKind, { need: string[]; refuse: string[] }>> = {
  plain: { need: [], refuse: [...SECURE, "enrolled-keys"] },
  "setup-mode": { need: SECURE, refuse: ["enrolled-keys"] },
  microsoft: { need: [...SECURE, "enrolled-keys"], refuse: [] },
};

/**
 * Why descriptor `d` does not fit a q35 x86_64 VM of `kind`, or undefined when it fits.
 * Pure: the file checks come after.
 */
export function ovmfMismatch(d: Descriptor, kind: OvmfKind = "plain"): string | undefined {
  if (!d["interface-types"]?.includes("uefi")) return "not UEFI";
  const q35 = d.targets?.some(
    (t) => t.architecture === "x86_64" && (t.machines ?? []).some((m) => m.startsWith("pc-q35")),
  );
  if (!q35) return "not for x86_64 q35 machines";
  if (d.mapping?.device !== "flash")
    return `mapped as ${d.mapping?.device ?? "nothing"}, not flash`;
  const features = d.features ?? [];
  const unwanted = features.filter((f) => FEATURES[kind].refuse.includes(f));
  if (unwanted.length > 0) return `has ${unwanted.join(", ")} (not ${kind})`;
  const lacking = FEATURES[kind].need.filter((f) => !features.includes(f));
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
 * OVMF for q35 without Secure Boot, from QEMU's firmware descriptors in priority order
 * (file name order; on Debian 12 that is 60-edk2-x86_64.json, after skipping the two
 * Secure Boot ones). Throws with every reason when none fits.
 */
export async function requireOvmf(
  dir = FIRMWARE_DESCRIPTORS,
  kind: OvmfKind = "plain",
): Promise<Ovmf> {
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => n.endsWith(".json"))
    .sort();
  const skipped: { descriptor: string; reason: string }[] = [];
  for (const name of names) {
    const descriptor = join(dir, name);
    let d: Descriptor;
    try {
      d = JSON.parse(await readFile(descriptor, "utf8")) as Descriptor;
    } catch (error) {
      skipped.push({ descriptor, reason: `unreadable: ${(error as Error).message}` });
      continue;
    }
    const mismatch = ovmfMismatch(d, kind);
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
    return { code, varsTemplate, descriptor, skipped, smm: kind !== "plain" };
  }
  const why = skipped.map((s) => `${s.descriptor}: ${s.reason}`).join("; ");
  throw new Error(
    `no OVMF firmware for q35 (${kind}) in ${dir}${why ? ` (${why})` : ""}; install the Debian package ovmf`,
  );
}

async function isReadable(path: string): Promise<boolean> {
  return access(path, constants.R_OK).then(
    () => true,
    () => false,
  );
}
