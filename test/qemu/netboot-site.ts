// A site's boot network for the netboot tests, made of real servers in a network namespace
// of the test's own: a bridge at 10.77.0.1/24, Debian's dnsmasq as DHCP and TFTP server
// with the netboot folder's dnsmasq.conf, and an HTTP server for the folder. Machines join
// the bridge through a tap each (NicSpec.tap). Nothing touches the host's own network.
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { NicSpec } from "../../testing/qemu/index.ts";
import { startDnsmasq } from "../../tools/dnsmasq.ts";
import { type StartedProcess, start } from "../../tools/exec.ts";
import {
  addBridgedNamespace,
  deleteNamespace,
  inNamespace,
  tapIntoNamespaceScript,
} from "../../tools/ip.ts";

export const SERVER = "10.77.0.1";
export const HTTP_PORT = 8080;
const BRIDGE = "br0";

export interface NetbootSite {
  /** The URL the folder is served at. */
  readonly url: string;
  /** A NIC on the site's network with this MAC, booting from it first. */
  nic(mac: string, index: number): NicSpec;
  /** Serves `folder` (again) over HTTP; payload requests get 503 while the gate is closed. */
  serve(folder: string): Promise<void>;
  closeGate(): Promise<void>;
  openGate(): Promise<void>;
  /** dnsmasq's log: its DHCP and TFTP lines. */
  log(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * `httpBootOnly`: the folder's configuration without its PXE answer, so the firmware's PXE
 * finds nothing to load and its UEFI HTTP boot (tried after PXE) does the boot.
 */
export async function startNetbootSite(
  dir: string,
  netbootFolder: string,
  options: { readonly httpBootOnly?: boolean } = {},
): Promise<NetbootSite> {
  // Short and unique per test process: interface names take 15 characters.
  const id = (process.pid % 10_000).toString();
  const ns = `liken-pxe-${id}`;
  await deleteNamespace(ns).catch(() => undefined);
  await addBridgedNamespace(ns, BRIDGE, `${SERVER}/24`);
  const script = join(dir, "tap-up.sh");
  await writeFile(script, tapIntoNamespaceScript(ns, BRIDGE), { mode: 0o755 });
  // The folder's configuration as the operator runs it, its tftp-root where the folder is.
  const conf = join(dir, "dnsmasq.conf");
  const text = await readFile(join(netbootFolder, "dnsmasq.conf"), "utf8");
  let lines = text.replace(/^tftp-root=.*$/m, `tftp-root=${netbootFolder}`).split("\n");
  if (options.httpBootOnly) lines = lines.filter((l) => !l.startsWith("dhcp-boot=tag:efi-x86_64"));
  await writeFile(conf, lines.join("\n"));
  const logFile = join(dir, "dnsmasq.log");
  const dnsmasq = await startDnsmasq({
    ns,
    iface: BRIDGE,
    confFile: conf,
    range: "10.77.0.50,10.77.0.99,1h",
    leaseFile: join(dir, "dnsmasq.leases"),
    logFile,
  });
  const gate = join(dir, "gate-closed");
  let http: StartedProcess | undefined;
  const stopHttp = async () => {
    http?.kill("SIGKILL");
    await http?.exited;
    http = undefined;
  };
  const site: NetbootSite = {
    url: `http://${SERVER}:${HTTP_PORT}/`,
    nic: (mac, index) => ({
      model: "virtio",
      mac,
      tap: { ifname: `lk${id}t${index}`, script },
      bootindex: 1,
      noOptionRom: true,
    }),
    async serve(folder) {
      await stopHttp();
      http = await start(
        "ip",
        inNamespace(ns, process.execPath, [
          "test/serve-folder.mjs",
          folder,
          SERVER,
          String(HTTP_PORT),
          gate,
        ]),
        { stdout: "pipe" },
      );
      await new Promise<void>((resolve, reject) => {
        http?.stdout?.once("data", () => resolve());
        http?.exited.then(
          (exit) => reject(new Error(`the HTTP server ended: ${exit.stderrTail}`)),
          reject,
        );
      });
    },
    closeGate: () => writeFile(gate, ""),
    openGate: () => rm(gate, { force: true }),
    log: () => readFile(logFile, "utf8").catch(() => ""),
    async stop() {
      await stopHttp();
      dnsmasq.kill("SIGKILL");
      await dnsmasq.exited;
      await deleteNamespace(ns).catch(() => undefined);
    },
  };
  await site.serve(netbootFolder);
  return site;
}
