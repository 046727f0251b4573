// identity.json on the state partition, read by the boot agent at every boot: whatever it
// holds, the agent gets the fields it needs with the defaults for the rest, never an error.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters } from "../test/fuzz.ts";
import {
  deeplyNested,
  fewRunParameters,
  jsonValue,
  mutatedText,
  withValuesReplaced,
} from "../test/fuzz-text.ts";
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
  it("reads any text as an identity", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: "binary" }), expectIdentity),
      fuzzParameters(),
    );
  });

  it("reads a damaged identity, with the defaults for what it lost", () => {
    fc.assert(fc.property(mutatedText(valid), expectIdentity), fuzzParameters());
  });

  it("reads fields of the wrong type as absent", () => {
    fc.assert(fc.property(withValuesReplaced(valid, jsonValue), expectIdentity), fuzzParameters());
  });

  it("reads deep nesting as the defaults", () => {
    fc.assert(fc.property(deeplyNested.json, expectIdentity), fewRunParameters(20, 200));
  });
});
