// The harness every QEMU test shares: a VM with its own scratch folder (OVMF variables,
// serial log, QMP socket), waiting for console lines with a deadline, QMP to pull the stick
// or reset, and no VM left running after a test, passed or failed.
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StartedProcess } from "../../tools/exec.ts";
import { OVMF_VARS, startQemu, type VmSpec } from "../../tools/qemu.ts";
import { Qmp } from "../../tools/qmp.ts";

const PANIC = /Kernel panic - not syncing|Oops:|BUG:/;
const running = new Set<Vm>();

export interface VmOptions {
  readonly stick?: string;
  readonly disks: VmSpec["disks"];
  /** Keep the OVMF variables of an earlier VM (its boot entries and pstore records). */
  readonly varsFrom?: string;
  readonly expectPanic?: boolean;
  readonly noReboot?: boolean;
}

export class Vm {
  private constructor(
    readonly dir: string,
    readonly varsFile: string,
    private readonly serialLog: string,
    private readonly process: StartedProcess,
    readonly qmp: Qmp,
    private readonly options: VmOptions,
  ) {}

  static async start(options: VmOptions): Promise<Vm> {
    const dir = await mkdtemp(join(tmpdir(), "liken-vm-"));
    const varsFile = join(dir, "OVMF_VARS.fd");
    await copyFile(options.varsFrom ?? OVMF_VARS, varsFile);
    const serialLog = join(dir, "serial.log");
    const qmpSocket = join(dir, "qmp.sock");
    const spec: VmSpec = {
      varsFile,
      ...(options.stick ? { stick: options.stick } : {}),
      disks: options.disks,
      serial: { file: serialLog },
      qmpSocket,
      ...(options.noReboot ? { noReboot: true } : {}),
    };
    const process = startQemu(spec, join(dir, "qemu.log"));
    const qmp = await Qmp.connect(qmpSocket).catch(async (error: Error) => {
      process.kill();
      const log = await readFile(join(dir, "qemu.log.stderr"), "utf8").catch(() => "");
      throw new Error(`${error.message}\n${log}`);
    });
    const vm = new Vm(dir, varsFile, serialLog, process, qmp, options);
    running.add(vm);
    return vm;
  }

  /** Everything the serial console printed so far, escape sequences removed. */
  async console(): Promise<string> {
    const raw = await readFile(this.serialLog, "utf8").catch(() => "");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences are the point
    return raw.replace(/\x1b\[[0-9;?=]*[A-Za-z]/g, "").replace(/\r/g, "");
  }

  /** The last lines of the console, for failure messages. */
  async tail(lines = 40): Promise<string> {
    return (await this.console()).split("\n").slice(-lines).join("\n");
  }

  /** Resolves with the first console line matching `pattern`; fails with the console's tail. */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.process.exited.then(() => {
      exited = true;
    });
    for (;;) {
      const text = await this.console();
      const line = text.split("\n").find((l) => pattern.test(l));
      if (line !== undefined) return line;
      if (!this.options.expectPanic && PANIC.test(text))
        throw await this.failure(`the kernel crashed while waiting for ${pattern}`);
      if (exited) throw await this.failure(`the VM stopped before the console showed ${pattern}`);
      if (Date.now() > deadline)
        throw await this.failure(`no ${pattern} on the console after ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Waits for QEMU to end (a guest power-off, or a reboot with noReboot). */
  async waitForExit(timeoutMs: number): Promise<void> {
    const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), timeoutMs));
    if ((await Promise.race([this.process.exited, timer])) === "timeout") {
      throw await this.failure(`the VM did not stop within ${timeoutMs / 1000} s`);
    }
    running.delete(this);
  }

  /** Pulls the USB stick out, as a person would. */
  async pullStick(): Promise<void> {
    await this.qmp.execute("device_del", { id: "stick-dev" });
  }

  async reset(): Promise<void> {
    await this.qmp.execute("system_reset");
  }

  async stop(): Promise<void> {
    running.delete(this);
    this.qmp.close();
    this.process.kill();
    await this.process.exited;
    await rm(this.dir, { recursive: true, force: true });
  }

  private async failure(what: string): Promise<Error> {
    return new Error(`${what}\n--- last console lines ---\n${await this.tail()}`);
  }
}

/** Stops every VM still running: for afterEach, so a failed test leaves none behind. */
export async function stopAllVms(): Promise<void> {
  await Promise.all([...running].map((vm) => vm.stop()));
}
