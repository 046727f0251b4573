// A trial boot's health checks (docs/rollback.md, What a release's root does): the state
// partition mounted and takes writes; the root runs from the slot this kernel came with,
// through dm-verity with the root hash its release.toml names; and every check the release
// put in /usr/lib/liken/health.d exits 0. They run under one deadline, so a check that
// hangs fails the trial instead of holding it forever.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { slotDir } from "../formats/boot-entries.ts";
import { requireRelease } from "../formats/release.ts";
import { runCheck } from "../tools/health-check.ts";
import type { VerifiedRoot } from "./machine.ts";
import type { Slot } from "./types.ts";

/** The release's own checks: executables, run in name order. */
export const HEALTH_CHECKS = "/usr/lib/liken/health.d";

export interface HealthInput {
  readonly version: string;
  readonly slot: Slot;
  readonly esp: string;
  /** The state partition is mounted and the trial's record was written to it. */
  readonly stateWritable: boolean;
  /** What / is mounted from; null when it is not a verity mapping. */
  readonly root: VerifiedRoot | null;
  /**
   * The slot's partition device, which the verity mapping must read, and on a mirrored
   * system disk the other member's copy, which the initramfs maps when the first does not
   * verify.
   */
  readonly slotDevices: readonly string[];
  readonly deadlineMs: number;
}

export type HealthResult =
  | { readonly healthy: true }
  | { readonly healthy: false; readonly message: string };

export async function checkHealth(input: HealthInput): Promise<HealthResult> {
  const started = Date.now();
  const fail = (message: string): HealthResult => ({ healthy: false, message });
  if (!input.stateWritable) return fail("the state partition did not mount or took no writes");
  // An unreadable release.toml fails the check below, with its own message.
  const release = await requireRelease(join(input.esp, slotDir(input.slot))).catch(() => undefined);
  if (!release) return fail(`slot ${input.slot} has no readable release.toml on the ESP`);
  if (release.version !== input.version)
    return fail(
      `slot ${input.slot}'s release.toml names ${release.version}, this root is ${input.version}`,
    );
  if (!input.root) return fail("the root is not mounted through dm-verity");
  if (!input.slotDevices.includes(input.root.from))
    return fail(
      `the root is read from ${input.root.from}, not from slot ${input.slot} (${input.slotDevices.join(" or ")})`,
    );
  if (input.root.rootHash !== release.verity.rootHash)
    return fail(
      `the root is verified against root hash ${input.root.rootHash}, slot ${input.slot}'s release names ${release.verity.rootHash}`,
    );
  // A root without health.d runs no checks of its own; the built-in ones above ran.
  const names = (await readdir(HEALTH_CHECKS).catch(() => [] as string[])).sort();
  for (const name of names) {
    const left = input.deadlineMs - (Date.now() - started);
    const result = await runCheck(join(HEALTH_CHECKS, name), Math.max(left, 1));
    if (result.kind === "timeout")
      return fail(`the health checks did not finish within ${input.deadlineMs / 1000} s (${name})`);
    if (result.kind === "failed")
      return fail(result.lastLine || `health check ${name} exited with code ${result.exitCode}`);
  }
  return { healthy: true };
}
