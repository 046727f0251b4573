// PortsReady as an operator reads it: which declared port held the boot and what to do.
import { describe, expect, it } from "vitest";
import { portLine } from "../hardware/network/ports-up.ts";
import { portsCondition } from "./ports.ts";

describe("portsCondition", () => {
  it("is True when every declared port has carrier", () => {
    expect(portsCondition([{ port: "eno1", kind: "carrier", seconds: 1.2 }], ["eno1"])).toEqual({
      status: "True",
      reason: "Carrier",
      message: "every declared port has carrier: eno1",
    });
  });

  it("names a port without carrier and what to do", () => {
    const c = portsCondition(
      [
        { port: "eno1", kind: "no-carrier", seconds: 30 },
        { port: "eno2", kind: "carrier", seconds: 0.4 },
      ],
      ["eno1", "eno2"],
    );
    expect(c.status).toBe("False");
    expect(c.reason).toBe("PortWithoutCarrier");
    expect(c.message).toBe(
      "eno1 has no carrier after 30 s; connect the cable, or remove the port from the manifest",
    );
  });

  it("puts a missing port first, with the interfaces the machine has", () => {
    const c = portsCondition(
      [
        { port: "eno1", kind: "missing" },
        { port: "ens2", kind: "no-carrier", seconds: 30 },
      ],
      ["ens2"],
    );
    expect(c.reason).toBe("PortMissing");
    expect(c.message).toContain("eno1 does not exist on this machine (its interfaces: ens2)");
    expect(c.message).toContain("ens2 has no carrier after 30 s");
  });

  it("is True with no ports declared", () => {
    expect(portsCondition([], [])).toMatchObject({ status: "True", reason: "NoPortsDeclared" });
  });
});

describe("portLine", () => {
  it("gives the seconds each port took", () => {
    expect(portLine({ port: "eno1", kind: "carrier", seconds: 2.04 })).toBe(
      "port eno1: carrier after 2.0 s",
    );
    expect(portLine({ port: "eno1", kind: "no-carrier", seconds: 30.01 })).toMatch(
      /^port eno1: no carrier after 30\.0 s; connect the cable/,
    );
  });
});
