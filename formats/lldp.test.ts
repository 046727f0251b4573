// The LLDP reader on frames as switches send them, and on the stick's own frame.
import { describe, expect, it } from "vitest";
import { lldpFrame, parseLldpFrame } from "./lldp.ts";

function tlv(type: number, hex: string): string {
  const value = Buffer.from(hex, "hex");
  return ((type << 9) | value.length).toString(16).padStart(4, "0") + hex;
}
const text = (s: string) => Buffer.from(s).toString("hex");

function frame(...tlvs: string[]): Buffer {
  return Buffer.from(`0180c200000e001c73aabbcc88cc${tlvs.join("")}0000`, "hex");
}

describe("parseLldpFrame", () => {
  it("reads a switch's chassis, name, port, its description and the port VLAN", () => {
    const f = frame(
      tlv(1, "04001c73aabbcc"),
      tlv(2, `05${text("Ethernet12")}`),
      tlv(3, "0078"),
      tlv(4, text("rack 7 leader-1 eno1")),
      tlv(5, text("tor-7a")),
      tlv(127, "0080c2010028"),
    );
    expect(parseLldpFrame(f)).toEqual({
      chassis: "00:1c:73:aa:bb:cc",
      systemName: "tor-7a",
      port: "Ethernet12",
      portDescription: "rack 7 leader-1 eno1",
      portVlan: 40,
    });
  });

  it("reads a frame behind an 802.1Q tag, and an IPv4 management chassis ID", () => {
    const f = Buffer.from(
      `0180c200000e001c73aabbcc8100002888cc${tlv(1, "05010a000001")}${tlv(2, "03001c73aabbcd")}${tlv(3, "0078")}0000`,
      "hex",
    );
    expect(parseLldpFrame(f)).toMatchObject({
      chassis: "10.0.0.1",
      port: "00:1c:73:aa:bb:cd",
      systemName: null,
      portDescription: null,
      portVlan: null,
    });
  });

  it("refuses other ethertypes, TLVs out of order and lengths past the frame", () => {
    expect(parseLldpFrame(Buffer.from("0180c200000e001c73aabbcc0800", "hex"))).toBeNull();
    expect(
      parseLldpFrame(frame(tlv(2, `05${text("e1")}`), tlv(1, "04001c73aabbcc"), tlv(3, "0078"))),
    ).toBeNull();
    const long = frame(tlv(1, "04001c73aabbcc"), tlv(2, `05${text("e1")}`), tlv(3, "0078"));
    long.writeUInt16BE((5 << 9) | 0x1ff, long.length - 2); // a system name past the frame's end
    expect(parseLldpFrame(Buffer.concat([long, Buffer.from("41", "hex")]))).toBeNull();
    expect(
      parseLldpFrame(
        Buffer.from(`0180c200000e001c73aabbcc88cc${tlv(1, "04001c73aabbcc").slice(0, 10)}`, "hex"),
      ),
    ).toBeNull();
    expect(parseLldpFrame(Buffer.alloc(10))).toBeNull();
  });

  it("shows a name's unprintable bytes as ? and cuts a long one", () => {
    const f = frame(
      tlv(1, `07${text("sw\u0007x")}`),
      tlv(2, `05${text("p".repeat(100))}`),
      tlv(3, "0078"),
    );
    const n = parseLldpFrame(f);
    expect(n?.chassis).toBe("sw?x");
    expect(n?.port).toBe(`${"p".repeat(64)}…`);
  });
});

describe("lldpFrame", () => {
  it("is an LLDPDU the reader reads back: this NIC's MAC and name, and the system's name", () => {
    const f = lldpFrame("52:54:00:12:34:56", "eno1", "liken-stick");
    expect(f.subarray(0, 6).toString("hex")).toBe("0180c200000e");
    expect(parseLldpFrame(f)).toEqual({
      chassis: "52:54:00:12:34:56",
      systemName: "liken-stick",
      port: "eno1",
      portDescription: null,
      portVlan: null,
    });
  });
});
