// Boot#### variables come from the firmware, written by anyone: each value reads as a load
// option or undefined, and only from its own bytes.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters, mutated, readsWithin } from "../test/fuzz.ts";
import { decodeLoadOption, encodeLoadOption } from "./efi-load-option.ts";

const valid = encodeLoadOption({
  description: "liken leader-1",
  partition: {
    number: 1,
    startLba: 2048,
    sizeLba: 1_048_576,
    uuid: "0456A209-63E3-866B-B349-8F68A59D4D62",
  },
  path: "\\EFI\\BOOT\\BOOTX64.EFI",
});

function expectOption(bytes: Uint8Array): void {
  const option = readsWithin(decodeLoadOption, bytes);
  if (option instanceof Error) throw option;
  if (!option) return;
  expect(typeof option.active).toBe("boolean");
  expect(typeof option.description).toBe("string");
  if (option.partitionUuid !== undefined)
    expect(option.partitionUuid).toMatch(/^[0-9A-F]{8}(-[0-9A-F]{4}){3}-[0-9A-F]{12}$/);
}

// A value whose device path is a run of nodes of any type and length, with an end node or not.
const nodes = fc
  .array(
    fc.tuple(
      fc.constantFrom(0x04, 0x7f, 0x01, 0x03),
      fc.constantFrom(0x01, 0x04, 0xff, 0x02),
      fc.uint8Array({ maxLength: 60 }),
      fc.option(fc.nat(80)),
    ),
    { maxLength: 6 },
  )
  .map((list) => {
    const paths = Buffer.concat(
      list.map(([type, subtype, body, length]) => {
        const node = Buffer.concat([Buffer.from([type, subtype, 0, 0]), body]);
        node.writeUInt16LE(length ?? node.length, 2);
        return node;
      }),
    );
    const head = Buffer.alloc(6);
    head.writeUInt32LE(1, 0);
    head.writeUInt16LE(paths.length, 4);
    return Buffer.concat([head, Buffer.from("x\0", "utf16le"), paths]);
  });

describe("Boot#### values, fuzzed", () => {
  it("reads any bytes as a load option or undefined", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), expectOption), fuzzParameters());
  });

  it("reads a damaged load option as one or undefined", () => {
    fc.assert(fc.property(mutated(valid), expectOption), fuzzParameters());
  });

  it("walks any device path to its end node or its last byte", () => {
    fc.assert(fc.property(nodes, expectOption), fuzzParameters());
  });
});
