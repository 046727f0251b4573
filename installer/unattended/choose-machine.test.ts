import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseManifest } from "../../manifest/index.ts";
import { chooseMachine, describeIdentity } from "./choose-machine.ts";

const FILE = "test/fixtures/manifests/good/match.toml";
const result = parseManifest(readFileSync(FILE, "utf8"), FILE);
if (!result.ok) throw new Error("the fixture does not parse");
const { machines } = result.manifest;
const nobody = { macs: ["52:54:00:00:00:99"], serial: "OTHER", uuid: null };

describe("chooseMachine", () => {
  it("takes the machine one of whose MACs this hardware has", () => {
    expect(
      chooseMachine(machines, { ...nobody, macs: ["52:54:00:00:00:99", "52:54:00:4c:4b:01"] }),
    ).toEqual({
      kind: "one",
      machine: "leader-1",
    });
  });

  it("needs every key of a match to agree, and names the machines that came close", () => {
    // worker-1 names a MAC and a serial: the MAC alone is not enough.
    const id = { ...nobody, macs: ["52:54:00:4c:4b:12"] };
    expect(chooseMachine(machines, id)).toEqual({
      kind: "none",
      near: [{ machine: "worker-1", agreed: ["mac"], differed: ["serial"] }],
    });
    expect(chooseMachine(machines, { ...id, serial: "LIKEN-QEMU-0002" })).toEqual({
      kind: "one",
      machine: "worker-1",
    });
  });

  it("matches the SMBIOS UUID as the manifest normalized it", () => {
    expect(
      chooseMachine(machines, { ...nobody, uuid: "4c494b45-4e00-4000-8000-000000000003" }),
    ).toEqual({ kind: "one", machine: "worker-2" });
  });

  it("finds none when nothing agrees, and says so with no near entries", () => {
    expect(chooseMachine(machines, nobody)).toEqual({ kind: "none", near: [] });
  });

  it("reports every machine when more than one matches (the manifest check keeps this rare)", () => {
    const twice = [
      ...machines,
      { ...machines[0], name: "leader-2", match: { uuid: "4c494b45-4e00-4000-8000-000000000009" } },
    ] as typeof machines;
    const id = {
      macs: ["52:54:00:4c:4b:01"],
      serial: null,
      uuid: "4c494b45-4e00-4000-8000-000000000009",
    };
    expect(chooseMachine(twice, id)).toEqual({ kind: "many", machines: ["leader-1", "leader-2"] });
  });

  it("describes the hardware in one line", () => {
    expect(describeIdentity(nobody)).toBe("MAC 52:54:00:00:00:99, serial OTHER, uuid unknown");
  });
});
