import { describe, expect, it } from "vitest";
import { identityOf } from "./properties.ts";

const ascii = (text: string) => Buffer.from(text.padEnd(4, "\0"), "latin1").readUInt32BE();

describe("identityOf", () => {
  it("reads the manufacturer, the vendor's string and the firmware's four numbers", () => {
    const properties = new Map([
      [0x105, ascii("IFX")],
      [0x106, ascii("SLB9")],
      [0x107, ascii("672")],
      [0x108, 0],
      [0x109, 0],
      [0x10b, 0x0007_0055],
      [0x10c, 0x11cb_0000],
    ]);
    expect(identityOf(properties)).toEqual({
      manufacturer: "IFX",
      vendor: "SLB9672",
      firmware: "7.85.4555.0",
    });
  });

  it("leaves out what is not printable, and reads absent properties as empty", () => {
    expect(identityOf(new Map([[0x105, 0x494e5443]]))).toEqual({
      manufacturer: "INTC",
      vendor: "",
      firmware: "0.0.0.0",
    });
    expect(identityOf(new Map([[0x105, 0x41_4d_44_00]])).manufacturer).toBe("AMD");
  });
});
