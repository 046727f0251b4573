import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalAddress,
  formatAddress,
  formatCidr,
  hostAddressProblem,
  inSubnet,
  isDefaultRoute,
  isNetworkAddress,
  networkOf,
  parseAddress,
  parseCidr,
} from "./ip-address.ts";

function cidr(text: string) {
  const parsed = parseCidr(text);
  if (parsed === undefined) throw new Error(`${text} is not a CIDR`);
  return parsed;
}

describe("parseAddress", () => {
  it("reads IPv4 and IPv6 as numbers", () => {
    expect(parseAddress("10.0.40.11")).toEqual({ family: 4, value: 0x0a00280bn });
    expect(parseAddress("::1")).toEqual({ family: 6, value: 1n });
    expect(parseAddress("fd00:40::11")).toEqual({
      family: 6,
      value: (0xfd00n << 112n) | (0x40n << 96n) | 0x11n,
    });
    expect(parseAddress("::ffff:10.0.0.1")).toEqual({ family: 6, value: 0xffff0a000001n });
    expect(parseAddress("1:2:3:4:5:6:7:8")?.value).toBe(0x00010002000300040005000600070008n);
  });

  it("refuses what is not one address", () => {
    for (const text of [
      "",
      "10.0.40",
      "10.0.40.011",
      "10.0.0.1/24",
      "fe80::1%eth0",
      "g::1",
      " ::1",
    ])
      expect(parseAddress(text), text).toBeUndefined();
  });
});

describe("parseCidr", () => {
  it("reads an address and its prefix length", () => {
    expect(parseCidr("10.0.40.11/24")).toEqual({
      address: { family: 4, value: 0x0a00280bn },
      prefix: 24,
    });
    expect(parseCidr("::/0")).toEqual({ address: { family: 6, value: 0n }, prefix: 0 });
    expect(parseCidr("fd00::1/128")?.prefix).toBe(128);
  });

  it("refuses a missing, longer than the family's or oddly written prefix", () => {
    for (const text of [
      "10.0.40.11",
      "10.0.40.11/",
      "10.0.40.11/33",
      "fd00::1/129",
      "10.0.40.11/024",
      "10.0.40.11/+4",
      "10.0.40.11/2 ",
      "10.0.40.11/24/1",
      "/24",
    ])
      expect(parseCidr(text), text).toBeUndefined();
  });
});

describe("canonicalAddress", () => {
  it("spells each address one way", () => {
    expect(canonicalAddress("fd00:0::1")).toBe("fd00::1");
    expect(canonicalAddress("FD00:0000:0000:0000:0000:0000:0000:0001")).toBe("fd00::1");
    expect(canonicalAddress("2001:db8:0:0:1:0:0:1")).toBe("2001:db8::1:0:0:1");
    expect(canonicalAddress("2001:db8:0:1:1:1:1:1")).toBe("2001:db8:0:1:1:1:1:1");
    expect(canonicalAddress("::")).toBe("::");
    expect(canonicalAddress("1::")).toBe("1::");
    expect(canonicalAddress("::ffff:a00:1")).toBe("::ffff:10.0.0.1");
    expect(canonicalAddress("10.0.40.11")).toBe("10.0.40.11");
    expect(canonicalAddress("fd00:40:0::11/64")).toBe("fd00:40::11/64");
    expect(canonicalAddress("not an address")).toBeUndefined();
  });

  it("reads back every address it writes as the same number", () => {
    const v6 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
    fc.assert(
      fc.property(v6, (value) => {
        const text = formatAddress({ family: 6, value });
        expect(parseAddress(text)).toEqual({ family: 6, value });
        expect(canonicalAddress(text)).toBe(text);
      }),
      { seed: 46, numRuns: 500 },
    );
  });
});

describe("subnets", () => {
  it("finds the subnet of a host's CIDR", () => {
    expect(formatCidr(networkOf(cidr("10.0.40.11/24")))).toBe("10.0.40.0/24");
    expect(formatCidr(networkOf(cidr("fd00:40::11/64")))).toBe("fd00:40::/64");
    expect(formatCidr(networkOf(cidr("10.0.40.11/0")))).toBe("0.0.0.0/0");
    expect(isNetworkAddress(cidr("10.0.0.0/8"))).toBe(true);
    expect(isNetworkAddress(cidr("10.0.0.1/8"))).toBe(false);
    expect(isNetworkAddress(cidr("10.0.0.1/32"))).toBe(true);
  });

  it("says whether an address lies inside a subnet of its family", () => {
    expect(inSubnet("10.0.40.1", "10.0.40.11/24")).toBe(true);
    expect(inSubnet("10.0.41.1", "10.0.40.11/24")).toBe(false);
    expect(inSubnet("10.0.41.1", "10.0.40.11/23")).toBe(true);
    expect(inSubnet("10.0.42.1", "10.0.40.11/23")).toBe(false);
    expect(inSubnet("10.0.43.1", "10.0.40.11/22")).toBe(true);
    expect(inSubnet("fd00:40::1", "fd00:40::11/64")).toBe(true);
    expect(inSubnet("fd00:41::1", "fd00:40::11/64")).toBe(false);
    expect(inSubnet("::ffff:10.0.40.1", "10.0.40.11/24")).toBe(false);
    expect(inSubnet("10.0.40.1", "::/0")).toBe(false);
    expect(inSubnet("anything", "10.0.40.11/24")).toBe(false);
  });

  it("knows the default routes in any spelling", () => {
    expect(isDefaultRoute("0.0.0.0/0")).toBe(true);
    expect(isDefaultRoute("::/0")).toBe(true);
    expect(isDefaultRoute("0:0::0/0")).toBe(true);
    expect(isDefaultRoute("10.0.0.0/8")).toBe(false);
    expect(isDefaultRoute("default")).toBe(false);
  });
});

describe("hostAddressProblem", () => {
  it("refuses addresses no single interface may hold", () => {
    expect(hostAddressProblem(cidr("0.0.0.0/24"))).toBe("is the unspecified address");
    expect(hostAddressProblem(cidr("::/64"))).toBe("is the unspecified address");
    expect(hostAddressProblem(cidr("127.0.0.2/8"))).toBe("is a loopback address");
    expect(hostAddressProblem(cidr("::1/128"))).toBe("is the loopback address");
    expect(hostAddressProblem(cidr("224.0.0.5/24"))).toBe("is a multicast address");
    expect(hostAddressProblem(cidr("ff02::1/64"))).toBe("is a multicast address");
    expect(hostAddressProblem(cidr("::ffff:10.0.0.1/120"))).toBe("is an IPv4-mapped address");
    expect(hostAddressProblem(cidr("10.0.40.0/24"))).toBe("is the network address of 10.0.40.0/24");
    expect(hostAddressProblem(cidr("10.0.40.255/24"))).toBe(
      "is the broadcast address of 10.0.40.0/24",
    );
  });

  it("allows every address of /31 and /32 and IPv6's subnet-router address", () => {
    expect(hostAddressProblem(cidr("10.0.0.0/31"))).toBeUndefined();
    expect(hostAddressProblem(cidr("10.0.0.1/31"))).toBeUndefined();
    expect(hostAddressProblem(cidr("10.0.0.7/32"))).toBeUndefined();
    expect(hostAddressProblem(cidr("10.0.40.11/24"))).toBeUndefined();
    expect(hostAddressProblem(cidr("fd00:40::/64"))).toBeUndefined();
    expect(hostAddressProblem(cidr("fe80::1/64"))).toBeUndefined();
  });
});
