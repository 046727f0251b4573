// LLDP (IEEE 802.1AB-2016, clause 8): the frames a switch sends on each port, naming itself
// and the port. The hardware report reads them to say where each NIC is cabled; the frame
// is the switch's bytes, so the reader judges every length and never throws. The stick
// sends one frame of its own (lldpFrame) first: a switch that sees a new neighbour answers
// at once (802.1AB's fast start) instead of at its next 30-second interval.

export const LLDP_ETHERTYPE = 0x88cc;
/** The nearest-bridge group address, which no bridge forwards (802.1AB 7.1). */
export const LLDP_MULTICAST = "01:80:c2:00:00:0e";

export interface LldpNeighbor {
  /** The switch: its chassis ID (a MAC as `aa:bb:..`, else its text). */
  readonly chassis: string;
  /** Its system name (TLV 5), when it sends one. */
  readonly systemName: string | null;
  /** The switch's port: its ID (an interface name such as `Ethernet12`, a MAC, or text). */
  readonly port: string;
  /** The port's description (TLV 4), when sent. */
  readonly portDescription: string | null;
  /** The port's VLAN ID (802.1 TLV, OUI 00-80-C2 subtype 1), when sent; 0 is none. */
  readonly portVlan: number | null;
}

const TLV_END = 0;
const TLV_CHASSIS = 1;
const TLV_PORT = 2;
const TLV_TTL = 3;
const TLV_PORT_DESCRIPTION = 4;
const TLV_SYSTEM_NAME = 5;
const TLV_ORGANIZATION = 127;
const IEEE_8021_OUI = 0x0080c2;
const SUBTYPE_MAC = { chassis: 4, port: 3 } as const;
const SUBTYPE_NETWORK_ADDRESS = { chassis: 5, port: 4 } as const;
/** Longer text is cut: a report line, not the switch's essay. */
const MAX_TEXT = 64;

/**
 * The neighbour an Ethernet frame names; null when it is not an LLDPDU or breaks the rules
 * (the first three TLVs must be chassis ID, port ID and TTL, each within the frame).
 */
export function parseLldpFrame(frame: Uint8Array): LldpNeighbor | null {
  if (frame.length < 14) return null;
  const bytes = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
  let at = 12;
  if (bytes.readUInt16BE(at) === 0x8100) at += 4; // an 802.1Q tag before the ethertype
  if (at + 2 > bytes.length || bytes.readUInt16BE(at) !== LLDP_ETHERTYPE) return null;
  const tlvs = readTlvs(bytes.subarray(at + 2));
  if (!tlvs || tlvs.length < 3) return null;
  const [chassis, port, ttl] = tlvs as [Tlv, Tlv, Tlv];
  if (chassis.type !== TLV_CHASSIS || port.type !== TLV_PORT || ttl.type !== TLV_TTL) return null;
  if (chassis.value.length < 2 || port.value.length < 2 || ttl.value.length < 2) return null;
  const text = (type: number) => {
    const tlv = tlvs.find((t) => t.type === type);
    return tlv ? printable(tlv.value) : null;
  };
  return {
    chassis: idText(chassis.value, SUBTYPE_MAC.chassis, SUBTYPE_NETWORK_ADDRESS.chassis),
    systemName: text(TLV_SYSTEM_NAME),
    port: idText(port.value, SUBTYPE_MAC.port, SUBTYPE_NETWORK_ADDRESS.port),
    portDescription: text(TLV_PORT_DESCRIPTION),
    portVlan: portVlanOf(tlvs),
  };
}

interface Tlv {
  readonly type: number;
  readonly value: Buffer;
}

// Up to the End TLV or the frame's end; null when a TLV's length runs past the frame.
function readTlvs(body: Buffer): Tlv[] | null {
  const tlvs: Tlv[] = [];
  let at = 0;
  while (at + 2 <= body.length) {
    const header = body.readUInt16BE(at);
    const type = header >> 9;
    const length = header & 0x1ff;
    if (type === TLV_END) return tlvs;
    if (at + 2 + length > body.length) return null;
    tlvs.push({ type, value: body.subarray(at + 2, at + 2 + length) });
    at += 2 + length;
  }
  return tlvs;
}

// A chassis or port ID: subtype byte, then the ID (802.1AB 8.5.2, 8.5.3).
function idText(value: Buffer, macSubtype: number, addressSubtype: number): string {
  const subtype = value[0];
  const id = value.subarray(1);
  if (subtype === macSubtype && id.length === 6) return macText(id);
  if (subtype === addressSubtype && id.length >= 5) {
    // IANA address family 1 (IPv4) then the address; others shown as hex.
    if (id[0] === 1 && id.length === 5) return [...id.subarray(1)].join(".");
    return id.subarray(1).toString("hex");
  }
  return printable(id);
}

function macText(bytes: Buffer): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(":");
}

// Text a person reads in the report: printable ASCII only, cut to MAX_TEXT.
function printable(value: Buffer): string {
  const text = value
    .subarray(0, MAX_TEXT)
    .toString("latin1")
    .replace(/[^\x20-\x7e]/g, "?")
    .trim();
  return value.length > MAX_TEXT ? `${text}…` : text;
}

function portVlanOf(tlvs: readonly Tlv[]): number | null {
  for (const t of tlvs) {
    if (t.type !== TLV_ORGANIZATION || t.value.length !== 6) continue;
    if (t.value.readUIntBE(0, 3) === IEEE_8021_OUI && t.value[3] === 1)
      return t.value.readUInt16BE(4);
  }
  return null;
}

/**
 * An LLDPDU from this NIC (`mac`, `ifName`), naming `systemName`: what the report sends
 * before it listens. TTL 120 s, the default of 802.1AB (4 × 30 s).
 */
export function lldpFrame(mac: string, ifName: string, systemName: string): Buffer {
  const macBytes = Buffer.from(mac.split(":").map((h) => Number.parseInt(h, 16)));
  const tlv = (type: number, value: Buffer) => {
    const header = Buffer.alloc(2);
    header.writeUInt16BE((type << 9) | value.length);
    return Buffer.concat([header, value]);
  };
  const ttl = Buffer.alloc(2);
  ttl.writeUInt16BE(120);
  const ethernet = Buffer.concat([
    Buffer.from(LLDP_MULTICAST.split(":").map((h) => Number.parseInt(h, 16))),
    macBytes,
    Buffer.from([LLDP_ETHERTYPE >> 8, LLDP_ETHERTYPE & 0xff]),
  ]);
  return Buffer.concat([
    ethernet,
    tlv(TLV_CHASSIS, Buffer.concat([Buffer.from([SUBTYPE_MAC.chassis]), macBytes])),
    tlv(TLV_PORT, Buffer.concat([Buffer.from([5]), Buffer.from(ifName.slice(0, MAX_TEXT))])),
    tlv(TLV_TTL, ttl),
    tlv(TLV_SYSTEM_NAME, Buffer.from(systemName.slice(0, MAX_TEXT))),
    tlv(TLV_END, Buffer.alloc(0)),
  ]);
}
