// The boot agent's record and last status on the state partition, whatever they hold, read
// as values the next boot can use: the trial's rejection and the next status document.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseBootRecord } from "../formats/boot-record.ts";
import { parseEntryName } from "../formats/entry-name.ts";
import { parseMachineStatus as parsePreviousStatus } from "../formats/machine-status.ts";
import { fuzzParameters } from "../test/fuzz.ts";
import { deeplyNested, jsonValue, mutatedText, withValuesReplaced } from "../test/fuzz-text.ts";
import { rejectionFor } from "./boot-plan.ts";
import { machineStatus, type StatusInput } from "./status.ts";
import type { Entry } from "./types.ts";

const NOW = "2026-12-01T04:10:00Z";
const fileName = "liken-b-2.0.0+0-3.conf";
const entry = { ...parseEntryName(fileName), fileName } as Entry;

const record = JSON.stringify(
  {
    trial: {
      version: "2.0.0",
      slot: "b",
      bootId: "0f4c8f3e-9a51-4a8e-b2a4-6f0d1c2e3b4a",
      startedAt: "2026-12-01T04:00:00Z",
      outcome: "Started",
      message: "",
    },
    rejection: {
      version: "2.0.0",
      slot: "b",
      reason: "Crashed",
      attempts: 3,
      time: "2026-12-01T04:00:00Z",
      message: "the kernel crashed",
    },
  },
  null,
  2,
);

const input: StatusInput = {
  now: NOW,
  bootId: "0f4c8f3e-9a51-4a8e-b2a4-6f0d1c2e3b4a",
  slot: "a",
  version: "1.0.0",
  trial: false,
  phase: "Running",
  rejection: null,
  lastCrash: null,
  previous: null,
  root: { partUuid: "62b67372-f6f3-8add-9fbd-37c635f1cff0", verity: true },
  watchdog: null,
  secureBoot: "enabled",
  network: {
    modules: [],
    modulesApplied: { status: "True", reason: "NoModulesDeclared", message: "" },
    portsReady: { status: "True", reason: "NoPortsDeclared", message: "" },
    applied: null,
    networkReady: { status: "True", reason: "NoInterfacesDeclared", message: "" },
  },
};
// The agent's own last status, with the old spelling of the boot id.
const status = JSON.stringify({ ...machineStatus(input), bootID: "x", bootId: undefined }, null, 2);

// The next boot: the trial's rejection from the record, the status from both.
function nextBoot(recordText: string, statusText: string): void {
  const r = parseBootRecord(recordText);
  const rejection = r ? rejectionFor(entry, r, [], NOW) : null;
  const previous = parsePreviousStatus(statusText);
  const next = machineStatus({ ...input, previous, rejection: r?.rejection ?? rejection });
  for (const c of next.conditions) expect(typeof c.lastTransitionTime).toBe("string");
}

const documents = (valid: string) =>
  fc.oneof(
    fc.string({ maxLength: 200, unit: "binary" }),
    mutatedText(valid),
    withValuesReplaced(valid, jsonValue),
    deeplyNested.json,
    fc.constant(valid),
  );

describe("the boot agent's state documents, fuzzed", () => {
  it("read as a record and a status the next boot uses", () => {
    fc.assert(fc.property(documents(record), documents(status), nextBoot), fuzzParameters());
  });

  it("read the status document's old spelling of the boot id", () => {
    expect(parsePreviousStatus(status)).toMatchObject({ bootId: "x" });
  });
});
