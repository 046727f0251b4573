// Where each NIC is cabled, from the LLDP frames its switch sends (docs/hwreport.md, NICs):
// every NIC with carrier listens at once for at most `ms`, after it sent one LLDPDU of its
// own, which makes a switch that fast-starts (802.1AB 9.2.5.5) answer at once rather than
// at its next 30-second interval. No frame heard is no neighbour, not a problem.
import { LLDP_MULTICAST, type LldpNeighbor, lldpFrame, parseLldpFrame } from "../formats/lldp.ts";
import { joinMulticast, leaveMulticast } from "../tools/ip.ts";
import { captureFrames, sendFrame } from "../tools/socat.ts";

/**
 * How long the stick listens: a switch that fast-starts answers the stick's frame within a
 * second; one that does not is heard only if its 30-second interval ends in this window.
 */
export const LLDP_LISTEN_MS = 5_000;

export interface ListeningNic {
  /** The kernel's name of the interface on this boot. */
  readonly kernelName: string;
  /** The name the report shows, which the stick's frame names as its port. */
  readonly name: string;
  readonly mac: string | null;
}

/** Each NIC's neighbour, by kernel name; NICs that heard nothing are absent. */
export async function listenForNeighbors(
  nics: readonly ListeningNic[],
  ms: number,
  systemName: string,
): Promise<Map<string, LldpNeighbor>> {
  const heard = await Promise.all(nics.map((nic) => neighborOf(nic, ms, systemName)));
  return new Map(
    nics.flatMap((nic, i) => {
      const neighbor = heard[i];
      return neighbor ? [[nic.kernelName, neighbor] as const] : [];
    }),
  );
}

async function neighborOf(
  nic: ListeningNic,
  ms: number,
  systemName: string,
): Promise<LldpNeighbor | null> {
  // Most NICs drop a multicast group nobody joined; without the join only a NIC that is
  // promiscuous already hears the switch.
  const joined = await joinMulticast(nic.kernelName, LLDP_MULTICAST).then(
    () => true,
    () => false,
  );
  try {
    const own = nic.mac?.toLowerCase();
    const capture = captureFrames({
      iface: nic.kernelName,
      ms,
      max: 1,
      // The socket sees this NIC's own frames go out too: only another's LLDPDU is kept.
      keep: (frame) => parseLldpFrame(frame) !== null && macAt(frame, 6) !== own,
    });
    if (nic.mac)
      // A frame that cannot be sent only loses the fast start: the listen goes on.
      await sendFrame(nic.kernelName, lldpFrame(nic.mac, nic.name, systemName)).catch(() => {});
    const [frame] = await capture;
    return frame ? parseLldpFrame(frame) : null;
  } finally {
    // The kernel counts joins: leaving undoes only this one.
    if (joined) await leaveMulticast(nic.kernelName, LLDP_MULTICAST).catch(() => {});
  }
}

function macAt(frame: Buffer, at: number): string {
  return [...frame.subarray(at, at + 6)].map((b) => b.toString(16).padStart(2, "0")).join(":");
}
