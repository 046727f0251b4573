// A trial boot's health checks (docs/design.md section 5, step 2): the slot holds the release
// this kernel came with, byte for byte; the state partition mounted and takes writes; and
// the release's own check. They run under a deadline, so a check that hangs fails the trial
// instead of holding it forever.
import { writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { slotDir } from "../formats/boot-entries.ts";
import { requireRelease } from "../formats/release.ts";
import { hashRegion } from "../formats/write-image.ts";
import type { Partition } from "./machine.ts";
import type { Slot } from "./types.ts";

export type Fault = "health" | "panic" | "hang";

export interface HealthInput {
  readonly version: string;
  readonly slot: Slot;
  readonly slotPartition: Partition;
  readonly esp: string;
  /** The state partition is mounted and the trial's record was written to it. */
  readonly stateWritable: boolean;
  readonly fault: Fault | null;
  readonly deadlineMs: number;
}

export type HealthResult =
  | { readonly healthy: true }
  | { readonly healthy: false; readonly message: string };

export async function checkHealth(input: HealthInput): Promise<HealthResult> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<HealthResult>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          healthy: false,
          message: `the health checks did not finish within ${input.deadlineMs / 1000} s`,
        }),
      input.deadlineMs,
    );
  });
  try {
    return await Promise.race([checks(input), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function checks(input: HealthInput): Promise<HealthResult> {
  const fail = (message: string): HealthResult => ({ healthy: false, message });
  if (!input.stateWritable) return fail("the state partition did not mount or took no writes");
  const release = await requireRelease(join(input.esp, slotDir(input.slot))).catch(() => undefined);
  if (!release) return fail(`slot ${input.slot} has no readable release.toml on the ESP`);
  if (release.version !== input.version)
    return fail(
      `slot ${input.slot}'s release.toml names ${release.version}, this kernel is ${input.version}`,
    );
  const expected = release.files["rootfs.img"]?.sha256;
  const handle = await open(input.slotPartition.device, "r");
  try {
    const actual = await hashRegion(handle, 0, release.rootfsSize);
    if (actual !== expected)
      return fail(
        `slot ${input.slot} does not hold release ${input.version}: sha256 ${actual}, expected ${expected}`,
      );
  } finally {
    await handle.close();
  }
  return releaseCheck(input.fault);
}

// The release's own check. Test releases carry a fault (liken-stick release --fault) that
// makes it fail, crash the kernel or hang, so the QEMU tests can prove each way back.
async function releaseCheck(fault: Fault | null): Promise<HealthResult> {
  if (fault === "health")
    return {
      healthy: false,
      message: "the release's own check failed (a test release built with --fault health)",
    };
  if (fault === "panic") writeFileSync("/proc/sysrq-trigger", "c");
  if (fault === "hang") for (;;) {} // the event loop stops: no watchdog ping, no deadline
  return { healthy: true };
}
