// One spelling per address, so the operator's words match what the kernel prints.
import { describe, expect, it } from "vitest";
import { canonical, familyOf, hostOf, isDefaultRoute } from "./address.ts";

describe("addresses", () => {
  it("spells IPv6 compressed and lower case, IPv4 without leading zeros, prefixes as numbers", () => {
    expect(canonical("FD00:40:0:0::11/064")).toBe("fd00:40::11/64");
    expect(canonical("fd00:0040::0011")).toBe("fd00:40::11");
    expect(canonical("10.0.040.011/24")).toBe("10.0.40.11/24");
    expect(canonical("not an address")).toBe("not an address");
    expect(canonical("fe80::1%eth0")).toBe("fe80::1%eth0");
  });

  it("tells the family, the host part and the default routes", () => {
    expect([familyOf("10.0.0.1/8"), familyOf("::1/128")]).toEqual(["inet", "inet6"]);
    expect(hostOf("fd00:40::11/64")).toBe("fd00:40::11");
    expect(["0.0.0.0/0", "::/0", "0:0::0/0", "10.0.0.0/8"].map(isDefaultRoute)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});
