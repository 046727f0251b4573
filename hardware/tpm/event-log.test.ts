// The event logs of hardware/fixtures/tpm/, captured from QEMU 7.2 + OVMF 2022.11 + swtpm
// 0.7.1 (scripts/capture-tpm-event-log.ts), and logs cut or changed where a reader goes wrong.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  EV_EFI_BOOT_SERVICES_DRIVER,
  EV_NO_ACTION,
  EventLogError,
  eventTypeName,
  parseEventLog,
} from "./event-log.ts";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/tpm/${name}`, import.meta.url));
const withRom = fixture("virtio-rom.bin");
const withoutRom = fixture("virtio-no-rom.bin");

describe("the TPM event log", () => {
  it("reads OVMF's crypto-agile log: the four banks of its Spec ID event and every event after it", () => {
    const log = parseEventLog(withRom);
    expect(log.format).toBe("crypto-agile");
    expect(log.algorithms).toEqual([
      { id: 0x4, name: "sha1", size: 20 },
      { id: 0xb, name: "sha256", size: 32 },
      { id: 0xc, name: "sha384", size: 48 },
      { id: 0xd, name: "sha512", size: 64 },
    ]);
    expect(log.events).toHaveLength(30);
    for (const e of log.events)
      expect(e.digests.map((d) => [d.algorithm, d.digest.length])).toEqual([
        ["sha1", 20],
        ["sha256", 32],
        ["sha384", 48],
        ["sha512", 64],
      ]);
    expect(log.events[0]).toMatchObject({ pcr: 0, type: 0x8 });
    expect(log.events.at(-1)?.data.toString("latin1")).toBe(
      "Exit Boot Services Returned with Success",
    );
  });

  it("has the option ROM's driver in PCR 2 with the NIC's ROM, and none without it", () => {
    const drivers = (bytes: Buffer) =>
      parseEventLog(bytes).events.filter((e) => e.type === EV_EFI_BOOT_SERVICES_DRIVER);
    expect(drivers(withRom).map((e) => e.pcr)).toEqual([2]);
    expect(drivers(fixture("secboot-virtio-rom.bin")).map((e) => e.pcr)).toEqual([2]);
    expect(drivers(withoutRom)).toEqual([]);
    expect(parseEventLog(withoutRom).events).toHaveLength(29);
  });

  it("names the event types as the profile does", () => {
    expect(eventTypeName(EV_EFI_BOOT_SERVICES_DRIVER)).toBe("EV_EFI_BOOT_SERVICES_DRIVER");
    expect(eventTypeName(EV_NO_ACTION)).toBe("EV_NO_ACTION");
    expect(eventTypeName(0x12345)).toBe("0x00012345");
  });

  it("reads a TPM 1.2's SHA-1 log, whose first event is no Spec ID event", () => {
    const event = (pcr: number, type: number, data: string) => {
      const head = Buffer.alloc(32);
      head.writeUInt32LE(pcr, 0);
      head.writeUInt32LE(type, 4);
      head.fill(0xab, 8, 28);
      head.writeUInt32LE(data.length, 28);
      return Buffer.concat([head, Buffer.from(data, "latin1")]);
    };
    const log = parseEventLog(Buffer.concat([event(0, 0x8, "1.0"), event(4, 0x4, "\0\0\0\0")]));
    expect(log.format).toBe("sha1");
    expect(log.events.map((e) => [e.pcr, e.type, e.data.length])).toEqual([
      [0, 0x8, 3],
      [4, 0x4, 4],
    ]);
  });

  it("ends at the zeros a log read from a fixed-size area is padded with", () => {
    const padded = Buffer.concat([withRom, Buffer.alloc(4096)]);
    expect(parseEventLog(padded).events).toHaveLength(30);
  });

  it("refuses an empty log, a cut one and one whose digest count lies, saying where", () => {
    expect(() => parseEventLog(Buffer.alloc(0))).toThrow(new EventLogError(0, "it is empty"));
    const cut = withRom.subarray(0, withRom.length - 10);
    expect(() => parseEventLog(cut)).toThrow(EventLogError);
    expect(() => parseEventLog(cut)).toThrow(
      /^the TPM event log is damaged at byte \d+: event data of 40 bytes needs/,
    );
    // The first TCG_PCR_EVENT2 starts after the Spec ID event; its digest count is at +8.
    const specIdEnd = 32 + withRom.readUInt32LE(28);
    const lying = Buffer.from(withRom);
    lying.writeUInt32LE(9, specIdEnd + 8);
    expect(() => parseEventLog(lying)).toThrow(
      `the TPM event log is damaged at byte ${specIdEnd + 8}: an event has 9 digests and the log's Spec ID event lists 4 algorithms`,
    );
    const unknownAlgorithm = Buffer.from(withRom);
    unknownAlgorithm.writeUInt16LE(0x99, specIdEnd + 12);
    expect(() => parseEventLog(unknownAlgorithm)).toThrow(
      "a digest of algorithm 0x99, which the Spec ID event does not list",
    );
  });
});
