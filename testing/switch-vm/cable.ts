// A cable between a switch VM's downlink and a NIC of the machine under test: a QEMU UDP
// socket pair on 127.0.0.1 (testing/qemu NicSpec.socket), each end sending to the other's
// port. Nothing on the host in between: no tap, no bridge, no root needed for it.
//
// Such a cable has no carrier of its own: QMP set_link down on one end leaves the other
// end's link up, as a fibre whose one direction broke would. An 802.3ad partner notices
// within three seconds (no LACP PDUs), a bridge port learns the machine's MAC on its other
// port; an active-backup bond on the switch's side keeps sending on the dead port. To pull
// a cable as a person does, take both ends down: `machine.setLink(i, false)` and
// `sw.setLink(i, false)`.
import { createSocket } from "node:dgram";
import type { NicSpec } from "../qemu/index.ts";

/**
 * The link speed both ends report. The bonding driver's 802.3ad mode keeps a port whose
 * speed it cannot read out of the bond, and a virtio NIC reports none unless told.
 */
export const CABLE_SPEED_MBPS = 10_000;

export interface Cable {
  /** The switch's end: startSwitchVm() takes it as a downlink (and gives it a MAC). */
  readonly switchNic: NicSpec;
  /**
   * The machine's end, a virtio NIC: spread it into the machine's NicSpec and add its
   * place and MAC (`{ ...cable.machineNic, mac, acpiIndex: 1 }`).
   */
  readonly machineNic: NicSpec;
}

/** A new cable on two UDP ports free now. */
export async function cable(): Promise<Cable> {
  const [a, b] = await freeUdpPorts(2);
  if (a === undefined || b === undefined) throw new Error("no free UDP ports on 127.0.0.1");
  const end = (localPort: number, peerPort: number): NicSpec => ({
    model: "virtio",
    socket: { localPort, peerPort },
    speedMbps: CABLE_SPEED_MBPS,
  });
  return { switchNic: end(a, b), machineNic: end(b, a) };
}

/** `count` cables. */
export async function cables(count: number): Promise<Cable[]> {
  const out: Cable[] = [];
  for (let i = 0; i < count; i++) out.push(await cable());
  return out;
}

// Ports the kernel hands out: bound together so they differ, closed for QEMU to bind. Another
// process could take one in between; the kernel's ephemeral range makes that unlikely.
async function freeUdpPorts(count: number): Promise<number[]> {
  const sockets = Array.from({ length: count }, () => createSocket("udp4"));
  try {
    return await Promise.all(
      sockets.map(
        (s) =>
          new Promise<number>((resolve, reject) => {
            s.once("error", reject);
            s.bind(0, "127.0.0.1", () => resolve(s.address().port));
          }),
      ),
    );
  } finally {
    for (const s of sockets) s.close();
  }
}
