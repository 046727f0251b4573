// identity.json on the state partition, read by the boot agent at every boot: whatever it
// holds, the agent gets the fields it needs with the defaults for the rest, never an error.
import { describe, expect } from "vitest";
import { itReadsAnyText } from "../test/fuzz-text.ts";
import { parseBootIdentity } from "./identity.ts";

const valid = JSON.stringify(
  {
    cluster: "mycluster",
    machine: "leader-1",
    role: "leader",
    installId: "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
    installedRelease: "1.0.0",
    installedAt: "2026-12-01T04:41:07Z",
    ports: ["eno1", "eno2"],
    modules: [{ name: "ixgbe", parameters: "allow_unsupported_sfp=1" }],
    rebootPolicy: "Automatic",
    storage: [{ role: "data", label: "liken-data" }],
  },
  null,
  2,
);

function expectIdentity(text: string): void {
  const identity = parseBootIdentity(text);
  expect(identity.installId === null || typeof identity.installId === "string").toBe(true);
  expect(["Automatic", "Manual"]).toContain(identity.rebootPolicy);
  for (const port of identity.ports) expect(typeof port).toBe("string");
  for (const m of identity.modules) {
    expect(typeof m.name).toBe("string");
    expect(typeof m.parameters).toBe("string");
  }
}

describe("identity.json's reader, fuzzed", () => {
  itReadsAnyText(valid, "json", expectIdentity);
});
