// Which accelerator the VMs run under. KVM fails on this project's machines
// (research/image-qemu.md), so TCG is the default and KVM is used only when probeKvm() has
// booted OVMF with it, or LIKEN_ACCEL or `npm run vm -- --accel` says so.
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Arch, runningArch } from "../../common/arch.ts";
import type { ProcessExit, StartedProcess } from "../../tools/exec.ts";
import { startQemu } from "./args.ts";
import type { Accel } from "./machine.ts";
import { type Ovmf, requireOvmf } from "./ovmf.ts";

/** Where the acceleration choice comes from: a person's flag, LIKEN_ACCEL, or the probe. */
export interface AccelChoice {
  readonly accel: Accel;
  /** Why, in a few words a person reads ("LIKEN_ACCEL=tcg", "KVM probe: ..."). */
  readonly why: string;
}

export const ACCEL_ENV = "LIKEN_ACCEL";

/**
 * The accelerator to run VMs of `arch` with: TCG for an arch other than the host's (KVM
 * runs only the host's own), else `wanted` (a person's `--accel`), else $LIKEN_ACCEL, else
 * KVM only when probeKvm() has booted OVMF with it, else TCG. A bad LIKEN_ACCEL throws, and
 * so does KVM asked for another arch.
 */
export async function chooseAccel(wanted?: Accel, arch: Arch = "amd64"): Promise<AccelChoice> {
  const host = runningArch();
  if (arch !== host) {
    if (wanted === "kvm") {
      throw new Error(`KVM runs only ${host ?? process.arch} guests on this host: ask for tcg`);
    }
    return { accel: "tcg", why: `${arch} on this ${host ?? process.arch} host` };
  }
  if (wanted) return { accel: wanted, why: "asked for" };
  const env = process.env[ACCEL_ENV];
  if (env !== undefined && env !== "") {
    if (env !== "tcg" && env !== "kvm") {
      throw new Error(
        `${ACCEL_ENV}=${env} is not an accelerator (set it to tcg or kvm, or unset it)`,
      );
    }
    return { accel: env, why: `${ACCEL_ENV}=${env}` };
  }
  const probe = await probeKvm();
  return { accel: probe.ok ? "kvm" : "tcg", why: `KVM probe: ${probe.detail}` };
}

/** What the KVM probe saw. */
export interface ProbeResult {
  readonly ok: boolean;
  readonly detail: string;
}

let kvmProbe: Promise<ProbeResult> | undefined;

/**
 * Whether KVM runs what the tests run. /dev/kvm existing is not enough, nor is guest code
 * in real mode: on these machines a real-mode probe passes, and then OVMF stops once it
 * runs in 32- or 64-bit mode ("KVM internal error. Suberror: 1", QEMU pauses the guest and
 * the console stays empty), or QEMU aborts on `-cpu host` ("failed to set MSR"). So the
 * probe boots OVMF itself, with the CPU model the VMs use, to its first console line.
 * Remembered for the process.
 */
export function probeKvm(): Promise<ProbeResult> {
  kvmProbe ??= runProbe("kvm");
  return kvmProbe;
}

// OVMF prints this when its boot manager starts: the firmware ran through SEC, PEI and DXE
// (long mode, SSE) on the accelerator. About 5 s under TCG, well under 1 s under KVM.
const PROBE_LINE = "BdsDxe:";
const PROBE_TIMEOUT_MS = 20_000;
const PROBE_POLL_MS = 100;
// What QEMU prints when KVM cannot run the guest (accel/kvm/kvm-all.c, target/i386/kvm).
const KVM_FAILURE = /KVM internal error|failed to set MSR|kvm_.*Assertion|Could not access KVM/;

/** Boots OVMF with `accel` until its first console line. Exported for the tests. */
export async function runProbe(accel: Accel): Promise<ProbeResult> {
  const started = Date.now();
  let firmware: Ovmf;
  try {
    firmware = await requireOvmf();
  } catch (error) {
    return { ok: false, detail: (error as Error).message };
  }
  const dir = await mkdtemp(join(tmpdir(), "liken-accel-probe-"));
  const console = join(dir, "serial.log");
  const vars = join(dir, "OVMF_VARS.fd");
  let qemu: StartedProcess | undefined;
  try {
    await copyFile(firmware.varsTemplate, vars);
    await writeFile(console, "");
    qemu = await startQemu({
      accel,
      memoryMiB: 256,
      cpus: 1,
      firmware: { code: firmware.code, vars },
      serial: { kind: "file", path: console },
      watchdog: "none",
    });
    let stderr = "";
    qemu.stderr?.on("data", (chunk: string) => {
      stderr += chunk;
    });
    let exited: ProcessExit | Error | undefined;
    void qemu.exited.then(
      (exit) => {
        exited = exit;
      },
      (error: Error) => {
        exited = error;
      },
    );
    const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
    for (;;) {
      if ((await readFile(console, "utf8")).includes(PROBE_LINE)) {
        return { ok: true, detail: `OVMF reached its boot manager in ${seconds()} s` };
      }
      const failure = stderrLine(stderr, KVM_FAILURE);
      if (failure) return { ok: false, detail: failure };
      if (exited) {
        const why = exited instanceof Error ? exited.message : stderrLine(exited.stderrTail, /./);
        return {
          ok: false,
          detail: `QEMU exited before OVMF printed anything${why ? `: ${why}` : ""}`,
        };
      }
      if (Date.now() - started > PROBE_TIMEOUT_MS) {
        return { ok: false, detail: `OVMF printed nothing within ${PROBE_TIMEOUT_MS / 1000} s` };
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_POLL_MS));
    }
  } finally {
    qemu?.kill("SIGKILL");
    await qemu?.exited.catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}

/** The first line of `text` that matches `pattern`, trimmed, or undefined. */
export function stderrLine(text: string, pattern: RegExp): string | undefined {
  return text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "" && pattern.test(l));
}

/** Whether QEMU's stderr says KVM failed the guest: the line that says so. */
export function findKvmFailure(stderr: string): string | undefined {
  return stderrLine(stderr, KVM_FAILURE);
}
