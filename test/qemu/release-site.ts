// Where the QEMU update tests' machines download releases from: a network namespace of the
// test's own with a bridge, the machine's NIC a tap on it, and test/netns/serve-releases.mjs
// serving release folders at http://10.78.0.1:8080/releases/<version>/, each version
// answering as the test says (served, stalled after the headers, or 503). Also the update
// media the tests plug into the running machine by QMP.
import { createHash } from "node:crypto";
import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { NicSpec } from "../../testing/qemu/index.ts";
import { type StartedProcess, start } from "../../tools/exec.ts";
import {
  addBridgedNamespace,
  deleteNamespace,
  inNamespace,
  tapIntoNamespaceScript,
} from "../../tools/ip.ts";
import type { Vm } from "./harness.ts";

const SERVER = "10.78.0.1";
const PORT = 8080;
const BRIDGE = "br0";

export type Answer = "serve" | "stall" | "unavailable";

export interface ReleaseSite {
  /** The machine's NIC: a tap on the namespace's bridge, onboard (acpi-index 1: eno1). */
  readonly nic: NicSpec;
  /** Puts `folder` at /releases/<version>/ and returns its URL and release.toml's sha256. */
  serve(version: string, folder: string): Promise<{ url: string; digest: string }>;
  /** How the server answers the requests for `version` from now on. */
  answer(version: string, how: Answer): Promise<void>;
  stop(): Promise<void>;
}

export async function startReleaseSite(dir: string): Promise<ReleaseSite> {
  // Short and unique per test process: interface names take 15 characters.
  const id = (process.pid % 10_000).toString();
  const ns = `liken-upd-${id}`;
  const root = join(dir, "www");
  const rules = join(dir, "answers.json");
  const answers: Record<string, Answer> = {};
  await mkdir(join(root, "releases"), { recursive: true });
  await writeFile(rules, "{}");
  await deleteNamespace(ns).catch(() => undefined); // a namespace left by a killed run
  await addBridgedNamespace(ns, BRIDGE, `${SERVER}/24`);
  const script = join(dir, "tap-up.sh");
  await writeFile(script, tapIntoNamespaceScript(ns, BRIDGE), { mode: 0o755 });
  let server: StartedProcess | undefined;
  try {
    server = await start(
      "ip",
      inNamespace(ns, process.execPath, [
        "test/netns/serve-releases.mjs",
        root,
        SERVER,
        String(PORT),
        rules,
      ]),
      { stdout: "pipe" },
    );
    await new Promise<void>((resolve, reject) => {
      server?.stdout?.once("data", () => resolve());
      server?.exited.then(
        (exit) => reject(new Error(`the release server ended: ${exit.stderrTail}`)),
        reject,
      );
    });
  } catch (error) {
    await deleteNamespace(ns).catch(() => undefined);
    throw error;
  }
  return {
    nic: {
      model: "virtio",
      acpiIndex: 1,
      mac: "52:54:00:78:00:11",
      tap: { ifname: `lk${id}u0`, script },
      noOptionRom: true,
    },
    serve: async (version, folder) => {
      const into = join(root, "releases", version);
      await rm(into, { recursive: true, force: true });
      await mkdir(into, { recursive: true });
      for (const name of await readdir(folder))
        await copyFile(join(folder, name), join(into, name));
      const digest = createHash("sha256")
        .update(await readFile(join(folder, "release.toml")))
        .digest("hex");
      return { url: `http://${SERVER}:${PORT}/releases/${version}/`, digest };
    },
    answer: async (version, how) => {
      answers[version] = how;
      await writeFile(`${rules}.new`, JSON.stringify(answers));
      // Renamed into place: the server never reads half a file.
      await rename(`${rules}.new`, rules);
    },
    stop: async () => {
      server?.kill("SIGKILL");
      await server?.exited.catch(() => undefined);
      await deleteNamespace(ns).catch(() => undefined);
    },
  };
}

/**
 * Plugs the update medium `image` into the running machine (a virtio disk on pc's root bus,
 * which takes a PCI device while the machine runs) as `id`.
 */
export async function plugMedium(vm: Vm, id: string, image: string): Promise<void> {
  await vm.qmp.execute("blockdev-add", {
    "node-name": `${id}-node`,
    driver: "raw",
    file: { driver: "file", filename: image },
  });
  await vm.qmp.execute("device_add", { driver: "virtio-blk-pci", drive: `${id}-node`, id });
}

/** Pulls medium `id` out of the running machine (the guest's ACPI hot-unplug). */
export async function pullMedium(vm: Vm, id: string): Promise<void> {
  await vm.qmp.execute("device_del", { id });
  await vm.qmp.waitForEvent("DEVICE_DELETED", {
    timeoutMs: 60_000,
    match: (e) => (e.data as { device?: string } | undefined)?.device === id,
  });
  await vm.qmp.execute("blockdev-del", { "node-name": `${id}-node` });
}
