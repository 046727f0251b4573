// The harness every QEMU test shares. startVm() gives a VM its own scratch folder (its copy
// of the OVMF variables, the raw serial log, the serial and QMP sockets) and returns a Vm:
// wait for console lines with a deadline, type keys, QMP to pull the stick, reset or power
// off, and, with relaunchOnReboot, a new QEMU after each guest reboot (the console and the
// variables carry on; media can change in between). No VM outlives its test: vm.stop(),
// stopAllVms() (run after every test file by test/qemu/setup.ts) and a process exit hook.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Arch } from "../../common/arch.ts";
import {
  type Accel,
  chooseAccel,
  findKvmFailure,
  nicId,
  nicSpec,
  type Ovmf,
  type OvmfKind,
  requireOvmf,
  STICK_DEVICE_ID,
  startQemu,
  type VmDisk,
  type VmNic,
  type VmSpec,
} from "../../testing/qemu/index.ts";
import { QmpClient } from "../../testing/qmp.ts";
import { startSwtpm } from "../../testing/swtpm.ts";
import type { ProcessExit, StartedProcess } from "../../tools/exec.ts";
import { ConsoleText, ConsoleWaitError } from "./console.ts";

export interface VmOptions {
  /**
   * amd64 (the default: q35 and OVMF) or arm64 (QEMU's virt and AAVMF under TCG, the
   * console on the PL011, ttyAMA0: testing/qemu/board.ts).
   */
  readonly arch?: Arch;
  /** A stick image, attached as a removable USB stick first in the boot order. */
  readonly stick?: string;
  /** An ISO in a CD drive on AHCI, first in the boot order. */
  readonly cdrom?: string;
  /** Let the guest write the stick image (by default its writes are thrown away). */
  readonly stickWritable?: boolean;
  readonly disks?: readonly VmDisk[];
  /**
   * Network ports (none by default): a model ("virtio", "e1000e") or a NicSpec with its PCI
   * place and `link: "down"`. NIC i is `nic<i>` to QMP. A link "down" is set through QMP as
   * soon as QEMU answers (the guest is still in OVMF), at every start of QEMU; vm.setLink()
   * changes it later.
   */
  readonly nics?: readonly VmNic[];
  readonly memoryMiB?: number;
  readonly cpus?: number;
  /** LIKEN_ACCEL, else TCG unless probeKvm() has booted OVMF with KVM (testing/qemu/). */
  readonly accel?: Accel;
  /** Start from a copy of this variable store (an earlier VM's boot entries, pstore records). */
  readonly varsFrom?: string;
  /**
   * The firmware build: plain OVMF (the default), Secure Boot with no keys (setup mode), or
   * Secure Boot with Microsoft's keys enrolled (testing/qemu/ovmf.ts OvmfKind).
   */
  readonly firmware?: OvmfKind;
  /**
   * Start QEMU again after a guest reboot (or vm.reset()), as a new process with the same
   * variables and console: vm.boots counts the starts, and the stick can change in between
   * (vm.pullStick(), vm.setStick()). Without it a reboot happens inside QEMU.
   */
  readonly relaunchOnReboot?: boolean;
  /** A kernel crash on the console is what the test wants: do not fail waitFor for it. */
  readonly expectPanic?: boolean;
  /** The SMBIOS system serial and UUID (testing/qemu/). */
  readonly system?: VmSpec["system"];
  /** The watchdog card (testing/qemu/): i6300esb by default. */
  readonly watchdog?: "i6300esb" | "ib700" | "none";
  /** q35 by default; pc has no chipset watchdog. */
  readonly machine?: "q35" | "pc";
  readonly debugExit?: boolean;
  /** A TPM 2.0 (tpm-crb; tpm-tis-device on arm64) backed by the swtpm on this control socket (testing/swtpm.ts). */
  readonly tpmSocket?: string;
  /**
   * The machine's TPM 2.0 as a folder of swtpm state: the harness starts swtpm on it before
   * each QEMU (swtpm ends with the QEMU it served, a relaunch included). The same folder in
   * another VM is the same TPM; a new folder, another machine's.
   */
  readonly tpmState?: string;
  /** Keep the scratch folder after stop() (also LIKEN_KEEP_VMS=1), for a look at its log. */
  readonly keepScratch?: boolean;
}

/** How the VM ended for good. */
export interface VmExit extends ProcessExit {
  /** The reason of QEMU's last SHUTDOWN event ("guest-shutdown", "host-qmp-quit", ...). */
  readonly shutdownReason: string | undefined;
}

// Reasons of a SHUTDOWN event that mean "the machine reset" when -no-reboot turned it into
// an exit (QEMU's qapi/run-state.json ShutdownCause). A watchdog reset is "guest-reset".
const RESET_REASONS = new Set(["guest-reset", "host-qmp-system-reset"]);
const SERIAL_CONNECT_MS = 15_000;
const DEFAULT_WAIT_MS = 60_000;
// OVMF prints within 5 s under TCG, 15 s on a loaded machine: a console silent this long
// after QEMU started is a guest that never ran (a paused or wedged accelerator), not a slow one.
const FIRST_OUTPUT_MS = 60_000;
// Under TCG with two vCPUs, QEMU 7.2 now and then wedges the guest kernel early in its boot:
// the console stops mid-line-stream (once after "NetLabel: unlabeled traffic allowed by
// default", at 1.9 s kernel time) and never prints again. A kernel printing nothing this
// long before it runs /init is such a wedge; nothing of liken has run yet, so the harness
// starts QEMU again, once per VM, and says so on stderr.
const KERNEL_STALL_MS = 45_000;
const KERNEL_STARTED = "Linux version ";
const KERNEL_DONE = "Run /init as init process";

const running = new Set<Vm>();
// Every VM not yet stopped, a guest that powered off by itself too: its scratch folder goes
// with stopAllVms().
const unstopped = new Set<Vm>();
let exitHookInstalled = false;
const ovmf = new Map<`${Arch} ${OvmfKind}`, Promise<Ovmf>>();

interface Launch {
  readonly process: StartedProcess;
  readonly qmp: QmpClient;
  readonly serial: Socket;
  readonly stickAttached: boolean;
}

export class Vm {
  /** The folder holding this VM's files. */
  readonly scratch: string;
  /** This VM's own copy of the firmware's variable store (OVMF's, or AAVMF's on arm64). */
  readonly varsFile: string;
  /** Everything the serial console printed, raw, as QEMU wrote it (all boots). */
  readonly serialLog: string;
  /** Resolves when the VM has stopped for good (not on a relaunch). */
  readonly exited: Promise<VmExit>;
  readonly #options: VmOptions;
  readonly #ovmf: Ovmf;
  readonly #accel: Accel;
  readonly #console: ConsoleText;
  #launch: Launch | undefined;
  #stick: string | undefined;
  #boots = 0;
  #stopping = false;
  /** Set when the harness killed a wedged kernel boot, to start QEMU again. */
  #stalled = false;
  #stallRestarts = 0;
  /** Why the harness ended this QEMU itself (the guest could not run): no relaunch then. */
  #fatal: string | undefined;
  #finalExit: VmExit | undefined;
  #resolveExited!: (exit: VmExit) => void;
  readonly #bootListeners = new Set<() => void>();

  private constructor(scratch: string, options: VmOptions, firmware: Ovmf, accel: Accel) {
    this.scratch = scratch;
    this.varsFile = join(scratch, options.arch === "arm64" ? "AAVMF_VARS.fd" : "OVMF_VARS.fd");
    this.serialLog = join(scratch, "serial.log");
    this.#options = options;
    this.#ovmf = firmware;
    this.#accel = accel;
    this.#stick = options.stick;
    this.#console = new ConsoleText({ expectPanic: options.expectPanic ?? false });
    this.exited = new Promise((resolve) => {
      this.#resolveExited = resolve;
    });
  }

  /** Starts a VM; use startVm(). */
  static async start(options: VmOptions = {}): Promise<Vm> {
    installExitHook();
    const kind = options.firmware ?? "plain";
    const arch = options.arch ?? "amd64";
    const found = ovmf.get(`${arch} ${kind}`) ?? requireOvmf(undefined, kind, arch);
    ovmf.set(`${arch} ${kind}`, found);
    const [firmware, accel] = await Promise.all([found, chooseAccel(options.accel, arch)]);
    const scratch = await mkdtemp(join(tmpdir(), "liken-vm-"));
    const vm = new Vm(scratch, options, firmware, accel.accel);
    running.add(vm);
    unstopped.add(vm);
    try {
      await copyFile(options.varsFrom ?? firmware.varsTemplate, vm.varsFile);
      await vm.#start();
    } catch (error) {
      await vm.stop();
      throw error;
    }
    return vm;
  }

  /** How many times QEMU was started for this VM (1, then one more per relaunch). */
  get boots(): number {
    return this.#boots;
  }

  /** QEMU's process id of the current boot. */
  get pid(): number | undefined {
    return this.#launch?.process.pid;
  }

  /** The QMP connection of the current boot. */
  get qmp(): QmpClient {
    if (!this.#launch) throw new Error("the VM is not running: no QMP");
    return this.#launch.qmp;
  }

  /** The serial console so far, all boots, without escape sequences. */
  console(): string {
    return this.#console.text;
  }

  /** The serial console so far, escape sequences and all. */
  rawConsole(): string {
    return this.#console.raw;
  }

  /** The console's last lines. */
  tail(lines?: number): string {
    return this.#console.tail(lines);
  }

  /**
   * The next console line containing `pattern` (string or RegExp): see ConsoleText.waitFor.
   * Fails with the console's last 40 lines on timeout, on a kernel crash, or when the VM
   * stops for good.
   */
  waitFor(pattern: string | RegExp, timeoutMs = DEFAULT_WAIT_MS): Promise<string> {
    return this.#console.waitFor(pattern, timeoutMs);
  }

  /** Waits for the VM to stop for good (a power-off, or `quit`). */
  async waitForExit(timeoutMs = DEFAULT_WAIT_MS): Promise<VmExit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const result = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    if (result === "timeout") {
      throw new ConsoleWaitError(
        "timeout",
        `the VM did not stop within ${timeoutMs / 1000} s`,
        this.tail(),
      );
    }
    return result;
  }

  /** Types `text` on the serial console; "\n" is sent as Enter ("\r"), as a terminal does. */
  async type(text: string): Promise<void> {
    const serial = this.#launch?.serial;
    if (!serial || serial.destroyed) throw new Error("the VM is not running: nothing to type into");
    const keys = text.replaceAll("\n", "\r");
    await new Promise<void>((resolve, reject) =>
      serial.write(keys, (error) => (error ? reject(error) : resolve())),
    );
  }

  /**
   * Plugs NIC `index`'s cable in (`up`) or pulls it (QMP set_link): the guest's driver sees
   * carrier come or go, as on a switch port. Lasts until QEMU starts again (a relaunch
   * begins with the links of VmOptions.nics).
   */
  async setLink(index: number, up: boolean): Promise<void> {
    const count = this.#options.nics?.length ?? 0;
    if (!Number.isInteger(index) || index < 0 || index >= count) {
      throw new Error(`no NIC ${index}: the VM has ${count}`);
    }
    await this.#requireLaunch().qmp.execute("set_link", { name: nicId(index), up });
  }

  /** Pulls the USB stick out (QMP device_del; USB needs no guest cooperation), for good. */
  async pullStick(timeoutMs = 10_000): Promise<void> {
    const launch = this.#launch;
    this.#stick = undefined;
    if (!launch?.stickAttached) return;
    const since = launch.qmp.events.length;
    await launch.qmp.execute("device_del", { id: STICK_DEVICE_ID });
    await launch.qmp.waitForEvent("DEVICE_DELETED", {
      since,
      timeoutMs,
      match: (e) => e.data?.device === STICK_DEVICE_ID,
    });
  }

  /** The stick the next start of QEMU attaches (after a relaunch): a path, or none. */
  setStick(path: string | undefined): void {
    this.#stick = path;
  }

  /**
   * A hard reset (QMP system_reset). With relaunchOnReboot QEMU exits and starts again:
   * this resolves when the new QEMU runs.
   */
  async reset(): Promise<void> {
    const launch = this.#requireLaunch();
    const next = this.#options.relaunchOnReboot ? this.#nextBoot() : undefined;
    const since = launch.qmp.events.length;
    await launch.qmp.execute("system_reset");
    if (next) await next;
    else await launch.qmp.waitForEvent("RESET", { since, timeoutMs: 10_000 });
  }

  /** Presses the power button (ACPI) and waits for the guest to power off. */
  async powerOff(timeoutMs = 60_000): Promise<VmExit> {
    await this.#requireLaunch().qmp.execute("system_powerdown");
    return this.waitForExit(timeoutMs);
  }

  /** Stops QEMU now (QMP quit, SIGKILL if that does not end it) and removes the scratch folder. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const launch = this.#launch;
    if (launch && this.#finalExit === undefined) {
      await launch.qmp.execute("quit", undefined, 2000).catch(() => {});
      const gone = await Promise.race([
        launch.process.exited.then(
          () => true,
          () => true,
        ),
        sleep(3000).then(() => false),
      ]);
      if (!gone) launch.process.kill("SIGKILL");
      await launch.process.exited.catch(() => {});
      await this.exited;
    }
    running.delete(this);
    unstopped.delete(this);
    if (!this.#options.keepScratch && process.env.LIKEN_KEEP_VMS !== "1") {
      await rm(this.scratch, { recursive: true, force: true });
    }
  }

  /** Kills QEMU at once, synchronously: for the process exit hook. */
  killNow(): void {
    this.#stopping = true;
    const pid = this.#launch?.process.pid;
    if (pid !== undefined && this.#finalExit === undefined) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  async #start(): Promise<void> {
    const serialSocket = join(this.scratch, "serial.sock");
    const qmpSocket = join(this.scratch, "qmp.sock");
    await rm(serialSocket, { force: true });
    await rm(qmpSocket, { force: true });
    const stick = this.#stick;
    // LIKEN_VM_CPUS: the QEMU tests run two VMs side by side with one vCPU each (vitest.config.ts).
    const cpus = this.#options.cpus ?? (Number(process.env.LIKEN_VM_CPUS) || undefined);
    const spec: VmSpec = {
      ...(this.#options.arch ? { arch: this.#options.arch } : {}),
      accel: this.#accel,
      firmware: { code: this.#ovmf.code, vars: this.varsFile, smm: this.#ovmf.smm },
      ...(stick ? { stick } : {}),
      ...(this.#options.stickWritable ? { stickWritable: true } : {}),
      ...(this.#options.cdrom ? { cdrom: this.#options.cdrom } : {}),
      disks: this.#options.disks ?? [],
      ...(this.#options.nics ? { nics: this.#options.nics } : {}),
      ...(this.#options.memoryMiB ? { memoryMiB: this.#options.memoryMiB } : {}),
      ...(cpus ? { cpus } : {}),
      // wait=on: the guest starts only once the harness is connected, so nothing is lost.
      serial: { kind: "socket", path: serialSocket, log: this.serialLog, wait: true },
      qmpSocket,
      noReboot: this.#options.relaunchOnReboot ?? false,
      watchdog: this.#options.watchdog ?? "i6300esb",
      ...(this.#options.system ? { system: this.#options.system } : {}),
      ...(this.#options.machine ? { machine: this.#options.machine } : {}),
      debugExit: this.#options.debugExit ?? false,
      ...(this.#options.tpmSocket ? { tpmSocket: this.#options.tpmSocket } : {}),
    };
    const tpm = this.#options.tpmState ? await startSwtpm(this.#options.tpmState, "vm") : undefined;
    const qemu = await startQemu(tpm ? { ...spec, tpmSocket: tpm.ctrlSocket } : spec);
    if (tpm) void qemu.exited.finally(() => tpm.stop());
    let ended = false;
    void qemu.exited.then(
      () => {
        ended = true;
      },
      () => {
        ended = true;
      },
    );
    const failed = async (what: string, cause: unknown): Promise<never> => {
      qemu.kill("SIGKILL");
      const exit = await qemu.exited.catch((e: Error) => e);
      const detail = exit instanceof Error ? exit.message : exit.stderrTail;
      throw new Error(`${what}${detail ? `: ${detail.split("\n").join(" | ")}` : ""}`, { cause });
    };
    const serial = await connectWhile(serialSocket, SERIAL_CONNECT_MS, () => !ended).catch(
      (error: Error) => failed(`QEMU did not open its serial console (${qemu.command})`, error),
    );
    serial.setEncoding("utf8");
    serial.on("data", (chunk: string) => this.#console.push(chunk));
    serial.on("error", () => {}); // ends in "close"; QEMU's exit is handled below
    const qmp = await QmpClient.connect(qmpSocket).catch((error: Error) =>
      failed("QEMU did not answer on QMP", error),
    );
    // Links that start down go down now: QEMU has no command-line switch for it, and the
    // guest is still in OVMF (a few seconds before any driver runs under TCG, well under
    // one under KVM).
    for (const [i, nic] of (this.#options.nics ?? []).entries()) {
      if (nicSpec(nic).link === "down") {
        await qmp
          .execute("set_link", { name: nicId(i), up: false })
          .catch((error: Error) => failed(`QMP could not take ${nicId(i)}'s link down`, error));
      }
    }
    this.#launch = { process: qemu, qmp, serial, stickAttached: stick !== undefined };
    this.#boots++;
    this.#watchGuest(qemu, qmp);
    // stop() came while this QEMU was starting: it goes at once.
    if (this.#stopping) qemu.kill("SIGKILL");
    for (const listener of this.#bootListeners) listener();
    void qemu.exited.then(
      (exit) => this.#onExit(exit, qmp),
      (error: Error) =>
        this.#onExit({ exitCode: undefined, signal: undefined, stderrTail: error.message }, qmp),
    );
  }

  /**
   * Ends this QEMU at once when its guest cannot run, so no test waits out its deadline on
   * a silent console: QEMU paused the guest by itself (QMP STOP: "KVM internal error"
   * stops it, it does not exit), its stderr says KVM failed, or the console printed nothing
   * long after the start.
   */
  #watchGuest(qemu: StartedProcess, qmp: QmpClient): void {
    const end = (why: string) => {
      if (this.#fatal !== undefined || this.#stopping) return;
      this.#fatal = why;
      qemu.kill("SIGKILL");
    };
    const accelHint = `(accelerator ${this.#accel}; LIKEN_ACCEL=tcg forces TCG)`;
    qmp.onEvent((event) => {
      if (event.event === "STOP") end(`QEMU paused the guest by itself ${accelHint}`);
    });
    let stderr = "";
    qemu.stderr?.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-8192);
      const failure = findKvmFailure(stderr);
      if (failure) end(`KVM could not run the guest: ${failure} ${accelHint}`);
    });
    const printed = this.#console.raw.length;
    const silence = setTimeout(() => {
      if (this.#console.raw.length === printed) {
        end(
          `the console stayed silent for ${FIRST_OUTPUT_MS / 1000} s after QEMU started ${accelHint}`,
        );
      }
    }, FIRST_OUTPUT_MS);
    silence.unref();
    let seen = printed;
    let lastOutput = Date.now();
    const stall = setInterval(() => {
      const raw = this.#console.raw;
      if (raw.length !== seen) {
        seen = raw.length;
        lastOutput = Date.now();
        return;
      }
      const boot = raw.slice(printed);
      const wedged =
        Date.now() - lastOutput >= KERNEL_STALL_MS &&
        boot.includes(KERNEL_STARTED) &&
        !boot.includes(KERNEL_DONE);
      if (!wedged || this.#stopping || this.#stallRestarts > 0) return;
      this.#stallRestarts++;
      this.#stalled = true;
      const last = boot.trimEnd().split("\n").at(-1)?.trim();
      process.stderr.write(
        `harness: the guest kernel printed nothing for ${KERNEL_STALL_MS / 1000} s before /init (last: ${last}); starting QEMU again\n`,
      );
      qemu.kill("SIGKILL");
    }, 5000);
    stall.unref();
    void qemu.exited.finally(() => {
      clearTimeout(silence);
      clearInterval(stall);
    });
  }

  async #onExit(exit: ProcessExit, qmp: QmpClient): Promise<void> {
    // The SHUTDOWN event comes before the socket closes; wait for the close to read it.
    await Promise.race([qmp.closed, sleep(2000)]);
    qmp.close();
    if (this.#fatal !== undefined) {
      const said = exit.stderrTail ? `; QEMU said: ${exit.stderrTail.split("\n").join(" | ")}` : "";
      this.#finish({ ...exit, shutdownReason: undefined }, `${this.#fatal}${said}`);
      return;
    }
    if (this.#stalled && !this.#stopping) {
      this.#stalled = false;
      try {
        await this.#start();
        return;
      } catch (error) {
        this.#finish(
          { ...exit, shutdownReason: undefined },
          `QEMU could not start again after its kernel wedged: ${(error as Error).message}`,
        );
        return;
      }
    }
    const shutdowns = qmp.events.filter((e) => e.event === "SHUTDOWN");
    const reason = shutdowns.at(-1)?.data?.reason;
    const shutdownReason = typeof reason === "string" ? reason : undefined;
    if (
      !this.#stopping &&
      this.#options.relaunchOnReboot &&
      shutdownReason !== undefined &&
      RESET_REASONS.has(shutdownReason)
    ) {
      try {
        await this.#start();
        return;
      } catch (error) {
        this.#finish(
          { ...exit, shutdownReason },
          `QEMU could not start again after a reboot: ${(error as Error).message}`,
        );
        return;
      }
    }
    const how =
      exit.signal !== undefined
        ? `was killed by ${exit.signal}`
        : `exited with code ${exit.exitCode}${shutdownReason ? ` (${shutdownReason})` : ""}`;
    const stderr = exit.stderrTail ? `; QEMU said: ${exit.stderrTail.split("\n").join(" | ")}` : "";
    this.#finish({ ...exit, shutdownReason }, `the VM stopped: QEMU ${how}${stderr}`);
  }

  #finish(exit: VmExit, why: string): void {
    this.#finalExit = exit;
    this.#console.end(why);
    running.delete(this);
    this.#resolveExited(exit);
  }

  #nextBoot(): Promise<void> {
    const boots = this.#boots;
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.#boots > boots) {
          this.#bootListeners.delete(check);
          resolve();
        }
      };
      this.#bootListeners.add(check);
      void this.exited.then(() => {
        this.#bootListeners.delete(check);
        reject(new Error(`the VM stopped instead of starting again\n${this.tail()}`));
      });
    });
  }

  #requireLaunch(): Launch {
    if (!this.#launch || this.#finalExit !== undefined) throw new Error("the VM is not running");
    return this.#launch;
  }
}

/** Starts a VM (see VmOptions); stop it with vm.stop(), or let stopAllVms() do it. */
export function startVm(options: VmOptions = {}): Promise<Vm> {
  return Vm.start(options);
}

/**
 * Stops every VM not stopped yet and removes its scratch folder: after each test file, so a
 * failed test leaves no QEMU behind, and a guest that powered off no folder.
 */
export async function stopAllVms(): Promise<void> {
  await Promise.all([...unstopped].map((vm) => vm.stop()));
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // The last resort (a test runner exiting with VMs still up): kill, synchronously.
  process.once("exit", () => {
    for (const vm of running) vm.killNow();
  });
}

// Connects to a unix socket QEMU is about to create, retrying while `stillWorth()`.
async function connectWhile(
  path: string,
  timeoutMs: number,
  stillWorth: () => boolean,
): Promise<Socket> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const socket = connect(path);
        socket.once("connect", () => {
          socket.off("error", reject);
          resolve(socket);
        });
        socket.once("error", reject);
      });
    } catch (error) {
      if (!stillWorth()) throw new Error("QEMU exited", { cause: error });
      if (Date.now() >= deadline) throw error;
      await sleep(50);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
