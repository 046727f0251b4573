// A software TPM 2.0 (swtpm, Debian's package) for one test: a QEMU VM's TPM, or the TPM
// client's own tests on the host. Its state folder is the TPM's identity: the same folder
// is the same TPM (its seeds, its sealed objects), a new folder another machine's TPM.
import { mkdir } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { type StartedProcess, start } from "../tools/exec.ts";

export interface Swtpm {
  /** The control socket QEMU's `-tpmdev emulator` connects to (VmSpec.tpmSocket). */
  readonly ctrlSocket: string;
  /** For the host's own client: raw TPM commands and responses ("host" only). */
  readonly dataSocket?: string;
  stop(): Promise<void>;
}

/**
 * Starts swtpm on `stateDir` (made when missing). "vm": QEMU initializes the TPM and the
 * firmware starts it, as on a machine. "host": started and ready for commands on
 * `dataSocket`, as the kernel leaves /dev/tpmrm0 for a program.
 */
export async function startSwtpm(stateDir: string, use: "vm" | "host"): Promise<Swtpm> {
  await mkdir(stateDir, { recursive: true });
  const ctrlSocket = join(stateDir, "ctrl.sock");
  const dataSocket = use === "host" ? join(stateDir, "data.sock") : undefined;
  const args = [
    ...["socket", "--tpm2", "--tpmstate", `dir=${stateDir}`],
    ...["--ctrl", `type=unixio,path=${ctrlSocket}`],
    ...(dataSocket
      ? ["--server", `type=unixio,path=${dataSocket}`, "--flags", "not-need-init,startup-clear"]
      : []),
  ];
  const process = await start("swtpm", args);
  await waitForListening(dataSocket ?? ctrlSocket, process);
  return {
    ctrlSocket,
    ...(dataSocket ? { dataSocket } : {}),
    stop: () => stopSwtpm(process),
  };
}

// swtpm makes its sockets a moment after it starts; a client before that finds none, and
// one between the socket's bind (its file appears) and its listen is refused.
async function waitForListening(path: string, process: StartedProcess): Promise<void> {
  let ended = false;
  void process.exited.then(() => {
    ended = true;
  });
  for (let waited = 0; waited < 10_000; waited += 20) {
    if (await accepts(path)) return;
    if (ended) {
      const exit = await process.exited;
      throw new Error(`${process.command} ended (code ${exit.exitCode}): ${exit.stderrTail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  process.kill();
  throw new Error(`${process.command} did not listen on ${path} within 10 s`);
}

// A connection taken and closed at once: swtpm serves the next client as before.
function accepts(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function stopSwtpm(process: StartedProcess): Promise<void> {
  process.kill();
  await process.exited;
}
