import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { VARIABLE_GUIDS } from "../formats/secure-boot-vars.ts";
import { type EnrollmentUpdates, enrolledNames, enrollKeys } from "./enroll-keys.ts";

// The test cluster's signed updates, as `liken-stick keys` made them (db without Microsoft's CA).
const KEYS = join(import.meta.dirname, "../test/fixtures/keys/cluster");

let efivars: string;
let updates: EnrollmentUpdates;
beforeEach(async () => {
  efivars = await mkdtemp(join(tmpdir(), "liken-enroll-"));
  const read = (name: string) => readFile(join(KEYS, `${name}.auth`));
  updates = { PK: await read("PK"), KEK: await read("KEK"), db: await read("db") };
});
afterEach(() => rm(efivars, { recursive: true, force: true }));

const file = (name: keyof typeof VARIABLE_GUIDS) => `${name}-${VARIABLE_GUIDS[name].toLowerCase()}`;

describe("enrollKeys", () => {
  it("writes db, KEK, then PK, each as the authenticated attributes and its .auth update", async () => {
    const order: string[] = [];
    await enrollKeys(efivars, updates, (name) => order.push(name));
    expect(order).toEqual(["db", "KEK", "PK"]);
    for (const name of ["db", "KEK", "PK"] as const) {
      const written = await readFile(join(efivars, file(name)));
      // NV | BS | RT | TIME_BASED_AUTHENTICATED_WRITE_ACCESS, little-endian.
      expect([...written.subarray(0, 4)]).toEqual([0x27, 0, 0, 0]);
      expect(written.subarray(4).equals(updates[name])).toBe(true);
    }
  });

  it("stops at a variable the firmware does not take, PK unwritten, and says what went in", async () => {
    // KEK cannot be written: a folder stands where its file would be.
    await mkdir(join(efivars, file("KEK")));
    await expect(enrollKeys(efivars, updates, () => {})).rejects.toThrow(
      /^the firmware did not take KEK \(.*\); db went in before it, PK did not, so the machine is still in setup mode/,
    );
    expect((await readdir(efivars)).sort()).toEqual([file("KEK"), file("db")].sort());
  });
});

describe("enrolledNames", () => {
  it("names the certificates each update sets", () => {
    // The test keys' owner GUID begins afd13149.
    expect(enrolledNames(updates)).toEqual({
      PK: ["liken PK afd13149"],
      KEK: ["liken KEK afd13149"],
      db: ["liken db afd13149"],
    });
  });
});
