// The switch VM's uplink: a network namespace the test makes, holding a bridge with an
// address (tools/ip.ts addBridgedNamespace, as the netboot tests' site), and the tap QEMU
// creates for the switch's last NIC, moved onto that bridge by the script QEMU runs. The
// namespace then sees the machine's VLANs as one plain untagged segment: the test pings
// the machine from there and runs its receivers there. Nothing touches the host's network.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addBridgedNamespace, deleteNamespace, tapIntoNamespaceScript } from "../../tools/ip.ts";
import type { NicSpec } from "../qemu/index.ts";
import { type PingOptions, type PingResult, pingFrom, waitForPing } from "./ping.ts";

const BRIDGE = "br0";

export interface UplinkNamespace {
  /** The namespace's name, for `ip netns exec` (tools/ip.ts inNamespace). */
  readonly ns: string;
  readonly bridge: string;
  /** The bridge's address, without its prefix length: 10.41.40.1. */
  readonly address: string;
  /** The NIC a switch VM's uplink is: a tap on the namespace's bridge, with its MTU. */
  uplinkNic(): NicSpec;
  ping(target: string, options?: PingOptions): Promise<PingResult>;
  /** Pings until `target` answers; throws after `timeoutMs` with ping's last output. */
  waitForPing(target: string, options?: PingOptions, timeoutMs?: number): Promise<PingResult>;
  /** Deletes the namespace: its bridge and the taps in it go too. */
  stop(): Promise<void>;
}

let made = 0;

/** A namespace whose bridge holds `cidr` (10.41.40.1/24) at `mtu` (1500 by default). */
export async function startUplinkNamespace(o: {
  readonly cidr: string;
  readonly mtu?: number;
}): Promise<UplinkNamespace> {
  // Short and unique per test process: interface names take 15 characters.
  const id = `${process.pid % 10_000}${String.fromCharCode(97 + (made++ % 26))}`;
  const ns = `liken-sw-${id}`;
  // A namespace of a killed run of this process id: gone before ours is made.
  await deleteNamespace(ns).catch(() => undefined);
  await addBridgedNamespace(ns, BRIDGE, o.cidr);
  const dir = await mkdtemp(join(tmpdir(), "liken-uplink-"));
  const script = join(dir, "tap-up.sh");
  await writeFile(script, uplinkTapScript(ns, BRIDGE, o.mtu ?? 1500), { mode: 0o755 });
  let taps = 0;
  return {
    ns,
    bridge: BRIDGE,
    address: o.cidr.replace(/\/\d+$/, ""),
    uplinkNic: () => ({ model: "virtio", tap: { ifname: `lksw${id}u${taps++}`, script } }),
    ping: (target, options) => pingFrom(ns, target, options),
    waitForPing: (target, options, timeoutMs) => waitForPing(ns, target, options, timeoutMs),
    async stop() {
      await deleteNamespace(ns);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The script QEMU runs with a new tap's name: onto the namespace's bridge (tools/ip.ts),
 * then the tap and the bridge at `mtu` (a bridge takes the smallest of its ports' MTUs
 * unless set).
 */
export function uplinkTapScript(ns: string, bridge: string, mtu: number): string {
  return `${tapIntoNamespaceScript(ns, bridge)}ip -n ${ns} link set dev "$1" mtu ${mtu}\nip -n ${ns} link set dev ${bridge} mtu ${mtu}\n`;
}
