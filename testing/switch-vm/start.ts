// Starts a switch VM beside the machine under test: QEMU boots the switch's kernel and
// initramfs directly (no firmware, no disk), one vCPU and 256 MiB, its configuration on the
// kernel's command line. The handle reads the console, pulls cables (QMP set_link) and
// stops the VM; none outlives the process.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProcessExit, StartedProcess } from "../../tools/exec.ts";
import { type Accel, chooseAccel, type NicSpec, nicId, startQemu } from "../qemu/index.ts";
import { QmpClient } from "../qmp.ts";
import { configWords, fullConfig, type PeerConfig } from "./config.ts";
import { ConsoleFile } from "./console-file.ts";
import { FAILED, READY } from "./init-script.ts";
import { switchBootFiles } from "./initramfs.ts";

export interface SwitchVmOptions {
  readonly config: PeerConfig;
  /** One NIC per downlink, in order (eth0, eth1, ...): each a cable's switchNic. */
  readonly downlinks: readonly NicSpec[];
  /** The uplink's NIC when config.uplink: an UplinkNamespace's uplinkNic(). */
  readonly uplink?: NicSpec;
  /** LIKEN_ACCEL, else what testing/qemu's probe finds (TCG where KVM fails). */
  readonly accel?: Accel;
  /** How long the VM has to configure itself and say ready: 60 s by default. */
  readonly readyTimeoutMs?: number;
}

export interface SwitchVm {
  readonly name: string;
  /** The MAC of each NIC, downlinks then uplink: a bond's is its first port's. */
  readonly macs: readonly string[];
  /** The serial console's file. */
  readonly consoleLog: string;
  readonly qmpSocket: string;
  readonly qmp: QmpClient;
  /** The console's whole lines so far. */
  console(): Promise<string>;
  /** The console's last lines. */
  tail(lines?: number): Promise<string>;
  /**
   * The next console line (after the last one returned) containing `pattern`, or matching
   * it; throws with the console's last lines on timeout or when QEMU is gone.
   */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Plugs NIC `index`'s cable in or pulls it (downlinks from 0, then the uplink). */
  setLink(index: number, up: boolean): Promise<void>;
  /** Stops QEMU and removes the VM's folder. */
  stop(): Promise<void>;
}

const MEMORY_MIB = 256;
// quiet: the console carries the VM's own lines; panic=-1 with -no-reboot: a crash ends
// QEMU, which the handle reports. mitigations=off: a tenth of the boot under TCG, and a
// test switch has no secrets to guard.
const KERNEL_OPTIONS = ["console=ttyS0", "quiet", "panic=-1", "mitigations=off"];
const DEFAULT_WAIT_MS = 60_000;
const running = new Set<StartedProcess>();
let started = 0;

/** Starts the VM and waits for its `<name>: ready`. */
export async function startSwitchVm(o: SwitchVmOptions): Promise<SwitchVm> {
  const config = fullConfig(o.config);
  if (o.downlinks.length !== config.downlinks)
    throw new Error(
      `${config.name}: ${config.downlinks} downlinks configured, ${o.downlinks.length} NICs given`,
    );
  if (config.uplink !== (o.uplink !== undefined))
    throw new Error(`${config.name}: an uplink NIC goes with config.uplink, and only with it`);
  const [files, accel] = await Promise.all([switchBootFiles(), chooseAccel(o.accel)]);
  const scratch = await mkdtemp(join(tmpdir(), `liken-${config.name}-`));
  const vm = started++ % 256;
  const nics = [...o.downlinks, ...(o.uplink ? [o.uplink] : [])].map((nic, i) => ({
    ...nic,
    mac: nic.mac ?? switchMac(vm, i),
  }));
  const consoleLog = join(scratch, "console.log");
  const qmpSocket = join(scratch, "qmp.sock");
  await writeFile(consoleLog, "");
  const qemu = await startQemu({
    accel: accel.accel,
    cpus: 1,
    memoryMiB: MEMORY_MIB,
    kernel: {
      kernel: files.kernel,
      initrd: files.initrd,
      append: [...KERNEL_OPTIONS, ...configWords(o.config)].join(" "),
    },
    nics,
    serial: { kind: "file", path: consoleLog },
    qmpSocket,
    noReboot: true,
    watchdog: "none",
  });
  const handle = await attach(config.name, qemu, scratch, consoleLog, qmpSocket, nics);
  // A step of /init that fails says so and holds: no need to wait out the deadline.
  const said = new RegExp(`^${config.name}: (${READY}|${FAILED}.*)$`);
  try {
    const line = await handle.waitFor(said, o.readyTimeoutMs ?? DEFAULT_WAIT_MS);
    if (!line.endsWith(`: ${READY}`))
      throw new Error(
        `${line}\n--- ${config.name}: the console's last lines ---\n${await handle.tail()}`,
      );
  } catch (error) {
    await handle.stop();
    throw error;
  }
  return handle;
}

async function attach(
  name: string,
  qemu: StartedProcess,
  scratch: string,
  consoleLog: string,
  qmpSocket: string,
  nics: readonly NicSpec[],
): Promise<SwitchVm> {
  running.add(qemu);
  installExitHook();
  let exit: ProcessExit | undefined;
  void qemu.exited.then(
    (e) => {
      exit = e;
    },
    (error: Error) => {
      exit = { exitCode: undefined, signal: undefined, stderrTail: error.message };
    },
  );
  const ended = () =>
    exit && `QEMU of ${name} ended (exit ${exit.exitCode ?? exit.signal}): ${exit.stderrTail}`;
  const stop = async () => {
    running.delete(qemu);
    qemu.kill("SIGKILL");
    await qemu.exited.catch(() => undefined); // how it ended does not matter once stopped
    await rm(scratch, { recursive: true, force: true });
  };
  const qmp = await QmpClient.connect(qmpSocket).catch(async (error: Error) => {
    await stop();
    throw new Error(`QEMU of ${name} did not answer on QMP: ${exit?.stderrTail ?? error.message}`);
  });
  const consoleFile = new ConsoleFile(consoleLog);
  return {
    name,
    macs: nics.map((n) => n.mac as string),
    consoleLog,
    qmpSocket,
    qmp,
    console: async () => (await consoleFile.lines()).join("\n"),
    tail: (lines) => consoleFile.tail(lines),
    waitFor: (pattern, timeoutMs = DEFAULT_WAIT_MS) =>
      consoleFile.waitFor(pattern, timeoutMs, ended),
    async setLink(index, up) {
      if (!Number.isInteger(index) || index < 0 || index >= nics.length)
        throw new Error(`${name} has no NIC ${index}: it has ${nics.length}`);
      await qmp.execute("set_link", { name: nicId(index), up });
    },
    async stop() {
      qmp.close();
      await stop();
    },
  };
}

/** 52:54:00 is QEMU's prefix; 5c marks the switch VMs, then the VM and the NIC. */
export function switchMac(vm: number, nic: number): string {
  const hex = (n: number) => n.toString(16).padStart(2, "0");
  return `52:54:00:5c:${hex(vm)}:${hex(nic)}`;
}

let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // The last resort when a test runner exits with switches still up: kill, synchronously.
  process.once("exit", () => {
    for (const qemu of running) qemu.kill("SIGKILL");
  });
}
