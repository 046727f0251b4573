import { describe, expect, it } from "vitest";
import { withCurrentSpellings } from "./old-spellings.ts";

describe("withCurrentSpellings", () => {
  it("reads a status document an older release wrote with bootID as bootId", () => {
    expect(withCurrentSpellings({ phase: "Running", bootID: "b1" })).toEqual({
      phase: "Running",
      bootId: "b1",
    });
  });

  it("keeps a document that spells it bootId as it is", () => {
    const doc = { phase: "Running", bootId: "b2" };
    expect(withCurrentSpellings(doc)).toBe(doc);
  });
});
