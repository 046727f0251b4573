// The test releases: a release built with a few named knobs, which the QEMU tests ask the
// build cache for (testing/cached-build.ts). Each knob becomes the variant the release build
// applies at its named points (image-build/release/variant.ts); nothing of them is in the
// release builder's own path.
import { createCipheriv, createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { basename } from "node:path";
import { MIB } from "../common/size.ts";
import { healthChecks } from "../image-build/release/build-release.ts";
import { rootInit } from "../image-build/release/root-init.ts";
import { AS_RELEASED, type ReleaseVariant } from "../image-build/release/variant.ts";

/**
 * The ways a test release fails on purpose, each a path the QEMU tests prove the machine
 * comes back from (docs/rollback.md, How a failed trial returns).
 */
export const RELEASE_FAULTS = ["health", "panic", "hang", "root", "verity", "signature"] as const;
export type ReleaseFault = (typeof RELEASE_FAULTS)[number];

export interface ReleaseKnobs {
  /** Modules left out of the boot path (and what needs them): a machine lacking a driver. */
  readonly withoutModules?: readonly string[];
  readonly fault?: ReleaseFault;
  /** MiB of deterministic noise in the root filesystem: a release whose slot write takes a while (the power-loss test). */
  readonly noiseMiB?: number;
}

/** The variant the release build applies for `knobs`, given the release's `version`. */
export function releaseVariant(version: string, knobs: ReleaseKnobs): ReleaseVariant {
  const fault = knobs.fault ? FAULTS[knobs.fault] : {};
  const noise = knobs.noiseMiB ? noiseVariant(version, knobs.noiseMiB) : {};
  return {
    ...AS_RELEASED,
    ...fault,
    ...noise,
    withoutModules: knobs.withoutModules ?? [],
    rootFiles: [...(fault.rootFiles ?? []), ...(noise.rootFiles ?? [])],
  };
}

/** The root's /sbin/init of a test release with `fault` (null: none), for checks of the script. */
export function faultRootInit(fault: ReleaseFault | null): string {
  return rootInit(releaseVariant("0", fault ? { fault } : {}));
}

/** The health.d scripts of a test release with `fault` (null: none): name and text. */
export function faultHealthChecks(fault: ReleaseFault | null): [string, string][] {
  const added = releaseVariant("0", fault ? { fault } : {}).rootFiles.filter((f) =>
    f.path.startsWith(HEALTH_D),
  );
  return [
    ...healthChecks(),
    ...added.map((f): [string, string] => [basename(f.path), String(f.bytes)]),
  ];
}

const HEALTH_D = "usr/lib/liken/health.d/";

/** A health check, in health.d, that runs beside the release's own. */
function healthCheck(script: string): Pick<ReleaseVariant, "rootFiles"> {
  return { rootFiles: [{ path: `${HEALTH_D}50-fault`, mode: 0o755, bytes: script }] };
}

const FAULTS: Readonly<Record<ReleaseFault, Partial<ReleaseVariant>>> = {
  health: healthCheck(
    '#!/bin/busybox sh\necho "the release\'s own check failed (a test release built with --fault health)"\nexit 1\n',
  ),
  panic: healthCheck("#!/bin/busybox sh\necho c > /proc/sysrq-trigger\n"),
  // PID 1 dying panics the kernel.
  root: {
    initLines: `say "liken: the root's init exits (a test release built with --fault root)"\nexit 1\n`,
  },
  // The root stops before anything pings the watchdog.
  hang: {
    initLines: `say "liken: the root hangs (a test release built with --fault hang)"\nwhile :; do :; done\n`,
  },
  // One changed byte in the first data block, after its hash went into the tree: the
  // installer's and the staging's sha256 of rootfs.img hold, dm-verity refuses the block.
  verity: { afterHashTree: (image) => flipByte(image, 0) },
  // One byte of the signed command line changed (panic=10 becomes panic=11): the firmware's
  // check of every byte fails, while the signer is still the cluster's db key.
  signature: {
    afterSigning: (uki) => {
      const at = uki.indexOf("panic=10\0");
      uki.write("1", at + "panic=1".length, "latin1");
    },
  },
};

// lz4: lz4hc gains nothing on bytes that do not compress, and takes longer over them.
function noiseVariant(version: string, mib: number): Partial<ReleaseVariant> {
  return {
    rootFiles: [{ path: "usr/lib/liken/noise.bin", mode: 0o644, bytes: noise(version, mib) }],
    compress: "lz4",
  };
}

async function flipByte(path: string, offset: number): Promise<void> {
  const handle = await open(path, "r+");
  try {
    const byte = Buffer.alloc(1);
    await handle.read(byte, 0, 1, offset);
    byte[0] = (byte[0] ?? 0) ^ 0xff;
    await handle.write(byte, 0, 1, offset);
  } finally {
    await handle.close();
  }
}

// AES-CTR over zeros, keyed by the version: incompressible, and the same bytes every build.
function noise(version: string, mib: number): Buffer {
  const key = createHash("sha256").update(`liken-noise-${version}`).digest();
  return createCipheriv("aes-256-ctr", key, Buffer.alloc(16)).update(Buffer.alloc(mib * MIB));
}
