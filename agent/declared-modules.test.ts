// What an operator reads after declaring modules: the parameters the kernel holds, and why
// ModuleParametersApplied is False when a declared string could not reach the module.
import { describe, expect, it } from "vitest";
import { type ModuleFacts, modulesOutcome, parameterNames } from "./declared-modules.ts";

function facts(over: Partial<ModuleFacts> & { name: string; parameters: string }): ModuleFacts {
  return {
    module: { name: over.name, parameters: over.parameters },
    builtin: false,
    loadedBefore: null,
    loadError: null,
    readBack: {},
    ...over,
  };
}

describe("modulesOutcome", () => {
  it("is True with nothing declared", () => {
    expect(modulesOutcome([])).toEqual({
      modules: [],
      condition: { status: "True", reason: "NoModulesDeclared", message: "" },
    });
  });

  it("reads back the parameters the kernel offers, in its spelling, leaving out the rest", () => {
    const out = modulesOutcome([
      facts({
        name: "e1000e",
        parameters: "copybreak=128 copybrake=1",
        readBack: { copybreak: "128" },
      }),
    ]);
    expect(out.modules).toEqual([{ name: "e1000e", parameters: { copybreak: "128" } }]);
    expect(out.condition).toMatchObject({ status: "True", reason: "Applied" });
  });

  it("is False for a built-in module, with the command-line form of its setting", () => {
    const out = modulesOutcome([
      facts({ name: "e1000e", parameters: "copybreak=128" }),
      facts({ name: "printk", parameters: "time=1", builtin: true }),
    ]);
    expect(out.condition.status).toBe("False");
    expect(out.condition.reason).toBe("BuiltIn");
    expect(out.condition.message).toContain("printk is built into the kernel");
    expect(out.condition.message).toContain("printk.time=1");
    expect(out.condition.message).not.toContain("e1000e");
  });

  it("names what loaded a module before its declared load", () => {
    const out = modulesOutcome([
      facts({ name: "nvme", parameters: "poll_queues=2", loadedBefore: "the initramfs loads it" }),
    ]);
    expect(out.condition).toMatchObject({ status: "False", reason: "LoadedBefore" });
    expect(out.condition.message).toContain(
      "nvme was already loaded before the declared modules ran (the initramfs loads it)",
    );
  });

  it("says why a module did not load", () => {
    const out = modulesOutcome([
      facts({ name: "ixgbe-x", parameters: "a=1", loadError: "module ixgbe_x not found" }),
    ]);
    expect(out.modules).toEqual([{ name: "ixgbe_x", parameters: {} }]);
    expect(out.condition).toMatchObject({ status: "False", reason: "LoadFailed" });
    expect(out.condition.message).toContain("module ixgbe_x not found");
  });
});

describe("parameterNames", () => {
  it("reads the names as the kernel does: - and _ are one", () => {
    expect(parameterNames(" allow-unsupported_sfp=1  debug  ")).toEqual([
      "allow_unsupported_sfp",
      "debug",
    ]);
  });
});
