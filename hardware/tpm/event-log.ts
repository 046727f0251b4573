// The TPM event log as the kernel shows it (/sys/kernel/security/tpm0/binary_bios_measurements):
// what the firmware measured into each PCR, in order. The format is the TCG PC Client
// Platform Firmware Profile's (version 1.05, section 10): a TPM 2.0's log is crypto-agile,
// its first event a SHA-1-format TCG_PCClientPCREvent holding the Spec ID event
// ("Spec ID Event03": the digest algorithms and their sizes), then TCG_PCR_EVENT2 records
// with one digest per algorithm; a TPM 1.2's log is SHA-1-format records throughout. The
// firmware wrote it and anyone may have changed it since: every length is checked against
// the bytes there are, and a log that does not parse is an EventLogError, never a RangeError.

/** `EV_NO_ACTION`: the Spec ID event's type; its digest is zero and extends no PCR. */
export const EV_NO_ACTION = 0x3;
/** A UEFI driver loaded by the boot services (an option ROM's, or one from a disk). */
export const EV_EFI_BOOT_SERVICES_DRIVER = 0x80000004;

const SPEC_ID_SIGNATURE = "Spec ID Event03\0";
const SHA1 = 0x0004;
const SHA1_SIZE = 20;
/** TCG_PCClientPCREvent before its event data: pcrIndex, eventType, SHA-1 digest, eventDataSize. */
const SHA1_HEADER = 4 + 4 + SHA1_SIZE + 4;
/** The TCG algorithm registry's names of the digests a PC's firmware uses. */
const ALGORITHM_NAMES: Readonly<Record<number, string>> = {
  [SHA1]: "sha1",
  11: "sha256",
  12: "sha384",
  13: "sha512",
  18: "sm3_256",
};

export interface DigestAlgorithm {
  /** TPM_ALG_ID: 0x000b is SHA-256. */
  readonly id: number;
  /** `sha256`, or `alg-0x1234` for one the registry above does not name. */
  readonly name: string;
  readonly size: number;
}

export interface TpmEvent {
  readonly pcr: number;
  /** The event type, EV_EFI_BOOT_SERVICES_DRIVER and the rest. */
  readonly type: number;
  /** One digest per algorithm of the log, in the record's order. */
  readonly digests: readonly { readonly algorithm: string; readonly digest: Buffer }[];
  /** The event's data, whose layout depends on the type. */
  readonly data: Buffer;
}

export interface EventLog {
  /** `crypto-agile` (a TPM 2.0's, after its Spec ID event) or `sha1` (a TPM 1.2's). */
  readonly format: "crypto-agile" | "sha1";
  readonly algorithms: readonly DigestAlgorithm[];
  /** Every event after the Spec ID event, in the order the firmware logged them. */
  readonly events: readonly TpmEvent[];
}

/** The log does not parse: where (its byte offset) and what is wrong there. */
export class EventLogError extends Error {
  readonly offset: number;
  constructor(offset: number, what: string) {
    super(`the TPM event log is damaged at byte ${offset}: ${what}`);
    this.name = "EventLogError";
    this.offset = offset;
  }
}

/** The log in `bytes`; throws EventLogError, and only that, when it does not parse. */
export function parseEventLog(bytes: Uint8Array): EventLog {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length === 0) throw new EventLogError(0, "it is empty");
  const first = sha1Event(b, 0);
  const algorithms = first.type === EV_NO_ACTION ? specIdAlgorithms(first.data, SHA1_HEADER) : null;
  if (!algorithms) {
    const events: TpmEvent[] = [];
    for (let at = 0; at < b.length && !allZero(b, at); ) {
      const e = sha1Event(b, at);
      events.push(e.event);
      at = e.next;
    }
    return { format: "sha1", algorithms: [algorithm(SHA1, SHA1_SIZE)], events };
  }
  const events: TpmEvent[] = [];
  for (let at = first.next; at < b.length && !allZero(b, at); ) {
    const e = agileEvent(b, at, algorithms);
    events.push(e.event);
    at = e.next;
  }
  return { format: "crypto-agile", algorithms, events };
}

/** The event type's name in the profile, `EV_EFI_BOOT_SERVICES_DRIVER`, or its number in hex. */
export function eventTypeName(type: number): string {
  return EVENT_TYPES[type] ?? `0x${type.toString(16).padStart(8, "0")}`;
}

const EVENT_TYPES: Readonly<Record<number, string>> = {
  0: "EV_PREBOOT_CERT",
  1: "EV_POST_CODE",
  3: "EV_NO_ACTION",
  4: "EV_SEPARATOR",
  5: "EV_ACTION",
  6: "EV_EVENT_TAG",
  7: "EV_S_CRTM_CONTENTS",
  8: "EV_S_CRTM_VERSION",
  9: "EV_CPU_MICROCODE",
  10: "EV_PLATFORM_CONFIG_FLAGS",
  11: "EV_TABLE_OF_DEVICES",
  12: "EV_COMPACT_HASH",
  13: "EV_IPL",
  14: "EV_IPL_PARTITION_DATA",
  15: "EV_NONHOST_CODE",
  16: "EV_NONHOST_CONFIG",
  17: "EV_NONHOST_INFO",
  18: "EV_OMIT_BOOT_DEVICE_EVENTS",
  2147483649: "EV_EFI_VARIABLE_DRIVER_CONFIG",
  2147483650: "EV_EFI_VARIABLE_BOOT",
  2147483651: "EV_EFI_BOOT_SERVICES_APPLICATION",
  2147483652: "EV_EFI_BOOT_SERVICES_DRIVER",
  2147483653: "EV_EFI_RUNTIME_SERVICES_DRIVER",
  2147483654: "EV_EFI_GPT_EVENT",
  2147483655: "EV_EFI_ACTION",
  2147483656: "EV_EFI_PLATFORM_FIRMWARE_BLOB",
  2147483657: "EV_EFI_HANDOFF_TABLES",
  2147483658: "EV_EFI_PLATFORM_FIRMWARE_BLOB2",
  2147483659: "EV_EFI_HANDOFF_TABLES2",
  2147483660: "EV_EFI_VARIABLE_BOOT2",
  2147483664: "EV_EFI_HCRTM_EVENT",
  2147483872: "EV_EFI_VARIABLE_AUTHORITY",
  2147483873: "EV_EFI_SPDM_FIRMWARE_BLOB",
  2147483874: "EV_EFI_SPDM_FIRMWARE_CONFIG",
};

function algorithm(id: number, size: number): DigestAlgorithm {
  return { id, name: ALGORITHM_NAMES[id] ?? `alg-0x${id.toString(16).padStart(4, "0")}`, size };
}

interface Parsed {
  readonly event: TpmEvent;
  /** The event's data alone, as the Spec ID event is read from it. */
  readonly data: Buffer;
  readonly type: number;
  readonly next: number;
}

function need(b: Buffer, at: number, length: number, what: string): void {
  if (length > b.length - at)
    throw new EventLogError(
      at,
      `${what} needs ${length} bytes and the log has ${Math.max(0, b.length - at)} left`,
    );
}

// A TCG_PCClientPCREvent: the SHA-1 format of the first event, and of a TPM 1.2's whole log.
function sha1Event(b: Buffer, at: number): Parsed {
  need(b, at, SHA1_HEADER, "an event's header");
  const pcr = b.readUInt32LE(at);
  const type = b.readUInt32LE(at + 4);
  const size = b.readUInt32LE(at + 28);
  need(b, at + SHA1_HEADER, size, `event data of ${size} bytes`);
  const data = b.subarray(at + SHA1_HEADER, at + SHA1_HEADER + size);
  const digest = Buffer.from(b.subarray(at + 8, at + 28));
  return {
    event: { pcr, type, digests: [{ algorithm: "sha1", digest }], data: Buffer.from(data) },
    data,
    type,
    next: at + SHA1_HEADER + size,
  };
}

// TCG_EfiSpecIDEvent: the signature, platformClass, the spec's version, uintnSize, the
// algorithms with their digest sizes, and vendor data. Null when the data is not one (a
// TPM 1.2's first event), an error when it says it is one and is damaged.
function specIdAlgorithms(data: Buffer, offset: number): DigestAlgorithm[] | null {
  if (data.length < 16 || data.toString("latin1", 0, 16) !== SPEC_ID_SIGNATURE) return null;
  const fail = (at: number, what: string) => new EventLogError(offset + at, what);
  if (data.length < 28) throw fail(data.length, "the Spec ID event is cut short");
  const count = data.readUInt32LE(24);
  if (count === 0) throw fail(24, "the Spec ID event lists no digest algorithm");
  if (count > (data.length - 28) / 4)
    throw fail(24, `the Spec ID event lists ${count} algorithms and has room for fewer`);
  const algorithms: DigestAlgorithm[] = [];
  for (let i = 0; i < count; i++) {
    const id = data.readUInt16LE(28 + i * 4);
    const size = data.readUInt16LE(30 + i * 4);
    if (size === 0) throw fail(30 + i * 4, `algorithm 0x${id.toString(16)} has digests of 0 bytes`);
    if (algorithms.some((a) => a.id === id))
      throw fail(28 + i * 4, `algorithm 0x${id.toString(16)} is listed twice`);
    algorithms.push(algorithm(id, size));
  }
  return algorithms;
}

// A TCG_PCR_EVENT2: pcrIndex, eventType, TPML_DIGEST_VALUES (a count, then each digest
// after its algorithm's id), eventSize, event.
function agileEvent(b: Buffer, at: number, algorithms: readonly DigestAlgorithm[]): Parsed {
  need(b, at, 12, "an event's header");
  const pcr = b.readUInt32LE(at);
  const type = b.readUInt32LE(at + 4);
  const count = b.readUInt32LE(at + 8);
  if (count > algorithms.length)
    throw new EventLogError(
      at + 8,
      `an event has ${count} digests and the log's Spec ID event lists ${algorithms.length} algorithms`,
    );
  let p = at + 12;
  const digests: { algorithm: string; digest: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    need(b, p, 2, "a digest's algorithm");
    const id = b.readUInt16LE(p);
    const alg = algorithms.find((a) => a.id === id);
    if (!alg)
      throw new EventLogError(
        p,
        `a digest of algorithm 0x${id.toString(16)}, which the Spec ID event does not list`,
      );
    need(b, p + 2, alg.size, `a ${alg.name} digest`);
    digests.push({ algorithm: alg.name, digest: Buffer.from(b.subarray(p + 2, p + 2 + alg.size)) });
    p += 2 + alg.size;
  }
  need(b, p, 4, "an event's size");
  const size = b.readUInt32LE(p);
  need(b, p + 4, size, `event data of ${size} bytes`);
  const data = b.subarray(p + 4, p + 4 + size);
  return {
    event: { pcr, type, digests, data: Buffer.from(data) },
    data,
    type,
    next: p + 4 + size,
  };
}

// A log read from a fixed-size area (ACPI's LASA) ends in zeros after its last event.
function allZero(b: Buffer, from: number): boolean {
  for (let i = from; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}
