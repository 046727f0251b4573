// Reads an installed disk back the way an operator does (`inspect --json`), and what the
// wipe tests expect of a disk that wipe and reinstall rewrote.
import { expect } from "vitest";
import { cli } from "./cli.ts";

// biome-ignore lint/suspicious/noExplicitAny: inspect's JSON, read field by field by the tests
export async function inspect(path: string): Promise<any> {
  const r = await cli(["inspect", "--json", path]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** A complete install of leader-1 of testcluster on `path`, not the one (`oldId`) it replaced. */
export async function expectNewInstall(path: string, oldId: string): Promise<void> {
  const after = await inspect(path);
  expect(after.claim).toMatchObject({
    cluster: "testcluster",
    machine: "leader-1",
    complete: true,
    copies: 2,
  });
  expect(after.claim.installId).not.toBe(oldId);
  expect(after.slots.a).toEqual({ version: "1.0.0", hashMatches: true });
  expect(after.journal).toMatchObject({ valid: true, installId: after.claim.installId });
  expect(after.identity).toMatchObject({ installId: after.claim.installId });
  expect(after.problems).toEqual([]);
}
