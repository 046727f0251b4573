// The boot agent reads identity.json of any install: fields it does not find read as the
// defaults, so an older install boots as before.
import { describe, expect, it } from "vitest";
import { parseBootIdentity } from "./identity.ts";

describe("parseBootIdentity", () => {
  it("reads the ports, modules and reboot policy the installer wrote", () => {
    const text = JSON.stringify({
      installId: "id-1",
      rebootPolicy: "Automatic",
      ports: ["eno1"],
      modules: [{ name: "ixgbe", parameters: "allow_unsupported_sfp=1" }],
    });
    expect(parseBootIdentity(text)).toEqual({
      installId: "id-1",
      rebootPolicy: "Automatic",
      ports: ["eno1"],
      modules: [{ name: "ixgbe", parameters: "allow_unsupported_sfp=1" }],
    });
  });

  it("reads an install without modules, or no file at all, as the defaults", () => {
    const defaults = { installId: null, rebootPolicy: "Manual", ports: [], modules: [] };
    expect(parseBootIdentity(null)).toEqual(defaults);
    expect(parseBootIdentity("{not json")).toEqual(defaults);
    expect(parseBootIdentity(JSON.stringify({ ports: "eno1", modules: [{ name: 1 }] }))).toEqual(
      defaults,
    );
  });
});
