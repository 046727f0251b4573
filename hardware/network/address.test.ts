// One spelling per address, so the operator's words match what the kernel prints.
import { describe, expect, it } from "vitest";
import { canonical, familyOf, hostOf } from "./address.ts";

describe("addresses", () => {
  it("compares by one spelling, and leaves what does not read as written", () => {
    expect(canonical("FD00:40:0:0::11/64")).toBe("fd00:40::11/64");
    expect(canonical("fd00:0040::0011")).toBe("fd00:40::11");
    expect(canonical("10.0.40.11/24")).toBe("10.0.40.11/24");
    expect(canonical("not an address")).toBe("not an address");
  });

  it("tells the family and the host part", () => {
    expect([familyOf("10.0.0.1/8"), familyOf("::1/128")]).toEqual(["inet", "inet6"]);
    expect(hostOf("fd00:40::11/64")).toBe("fd00:40::11");
  });
});
