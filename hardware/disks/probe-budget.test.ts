import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { Budget, DEVICE_BUDGET_MS, FILE_BUDGET_MS, probeBudgetMs } from "./probe-budget.ts";

describe("a disk's probe budget", () => {
  it("is 10 s for an image file and 20 s for a block device", () => {
    expect(probeBudgetMs({ kind: "file" })).toBe(FILE_BUDGET_MS);
    expect(FILE_BUDGET_MS).toBe(10_000);
    expect(DEVICE_BUDGET_MS).toBe(20_000);
    expect(probeBudgetMs({ kind: "block" })).toBe(DEVICE_BUDGET_MS);
  });

  it("gives work that ends in time its answer, and stops waiting for work that does not", async () => {
    const budget = new Budget(150);
    // Work already done wins even when a loaded machine spent the budget before the call
    // (a 10 ms sleep took longer than 135 ms once, at the start of a full run).
    expect(await budget.within(Promise.resolve("read"))).toBe("read");
    const started = Date.now();
    expect(await budget.within(sleep(5_000).then(() => "read"))).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(4_000);
    // Spent, give or take the millisecond a timer may fire before the wall's clock says so.
    expect(budget.leftMs).toBeLessThan(5);
  });
});
