// PK, KEK and db as efivarfs shows them: signature lists of any sizes, which the hardware
// report reads to say which keys the machine trusts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters, mutated, readsWithin } from "../test/fuzz.ts";
import { decodeSignatureLists, encodeSignatureLists } from "./secure-boot-vars.ts";

const OWNER = "77FA9ABD-0359-4D32-BD60-28F4E78F784B";
const certificate = Buffer.from("3082010a0282010100", "hex");
const valid = encodeSignatureLists([
  { owner: OWNER, certificate },
  { owner: OWNER, certificate: Buffer.alloc(40, 7) },
]);

function expectEntries(bytes: Uint8Array): void {
  const entries = readsWithin((b) => decodeSignatureLists(b), bytes);
  if (entries instanceof Error) throw entries;
  let total = 0;
  for (const e of entries) total += e.certificate.length + 16;
  expect(total).toBeLessThanOrEqual(bytes.length);
}

// Lists whose sizes say anything: list, header and entry sizes are where a reader goes wrong.
const lists = fc
  .array(fc.tuple(fc.nat(200), fc.nat(64), fc.nat(80), fc.uint8Array({ maxLength: 120 })), {
    maxLength: 4,
  })
  .map((list) =>
    Buffer.concat(
      list.map(([listSize, headerSize, entrySize, body]) => {
        const head = Buffer.from(
          encodeSignatureLists([{ owner: OWNER, certificate }]).subarray(0, 28),
        );
        head.writeUInt32LE(listSize, 16);
        head.writeUInt32LE(headerSize, 20);
        head.writeUInt32LE(entrySize, 24);
        return Buffer.concat([head, body]);
      }),
    ),
  );

describe("EFI signature lists, fuzzed", () => {
  it("reads any bytes as the certificates they hold", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), expectEntries), fuzzParameters());
  });

  it("reads damaged lists as the certificates still whole", () => {
    fc.assert(fc.property(mutated(valid), expectEntries), fuzzParameters());
  });

  it("reads lists whose sizes say anything", () => {
    fc.assert(fc.property(lists, expectEntries), fuzzParameters());
  });
});
