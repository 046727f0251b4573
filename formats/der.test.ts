import { describe, expect, it } from "vitest";
import { children, integer, oid, readElement, sequence, set, tlv } from "./der.ts";

describe("DER", () => {
  it("writes object identifiers as X.690 does (sha256, and an arc above 127)", () => {
    expect(oid("2.16.840.1.101.3.4.2.1").toString("hex")).toBe("0609608648016503040201");
    expect(oid("1.3.6.1.4.1.311.2.1.4").toString("hex")).toBe("060a2b060104018237020104");
  });

  it("writes integers with a sign byte where the top bit is set", () => {
    expect(integer(1).toString("hex")).toBe("020101");
    expect(integer(0).toString("hex")).toBe("020100");
    expect(integer(128).toString("hex")).toBe("02020080");
  });

  it("writes long lengths in the long form and reads them back", () => {
    const big = tlv(0x04, Buffer.alloc(300, 7));
    expect(big.subarray(0, 4).toString("hex")).toBe("0482012c");
    const read = readElement(sequence(big, integer(5)));
    expect(children(read).map((c) => c.tag)).toEqual([0x04, 0x02]);
    expect(children(read)[0]?.content.length).toBe(300);
  });

  it("sorts a SET OF by its members' encodings", () => {
    expect(set(integer(2), integer(1)).toString("hex")).toBe("3106020101020102");
  });

  it("refuses a value that runs past its end", () => {
    expect(() => readElement(Buffer.from("3005020101", "hex"))).toThrow("past its end");
  });
});
