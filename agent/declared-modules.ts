// The declared modules' outcome (docs/troubleshoot.md, A module parameter did not take):
// what the kernel reads back for each declared parameter, and the condition
// ModuleParametersApplied. Pure: the facts the boot gathered in, the status parts out.
import type { IdentityModule } from "../formats/identity.ts";
import type { ModuleStatus } from "../formats/machine-status.ts";

/** What the boot found out about one declared module. */
export interface ModuleFacts {
  readonly module: IdentityModule;
  /** In the kernel image: no load happens, so the parameters never reach it. */
  readonly builtin: boolean;
  /** Who had loaded it before its declared load ran, or null. */
  readonly loadedBefore: string | null;
  /** The declared load's failure (modprobe's last line); null when it loaded or did not run. */
  readonly loadError: string | null;
  /** Each declared parameter with a readable file, as the kernel names and spells it. */
  readonly readBack: Readonly<Record<string, string>>;
}

export interface ConditionPart {
  readonly status: "True" | "False";
  readonly reason: string;
  readonly message: string;
}

/** The declared words' parameter names, the kernel's way (`-` and `_` are one character). */
export function parameterNames(parameters: string): string[] {
  return parameters
    .split(/\s+/)
    .filter((w) => w !== "")
    .map((w) => (w.split("=")[0] ?? w).replaceAll("-", "_"));
}

export function moduleName(name: string): string {
  return name.replaceAll("-", "_");
}

export function modulesOutcome(facts: readonly ModuleFacts[]): {
  readonly modules: ModuleStatus[];
  readonly condition: ConditionPart;
} {
  const modules = facts.map((f) => ({ name: moduleName(f.module.name), parameters: f.readBack }));
  if (facts.length === 0)
    return {
      modules,
      condition: { status: "True", reason: "NoModulesDeclared", message: "" },
    };
  const failures = facts.flatMap((f): [string, string][] => {
    const name = moduleName(f.module.name);
    if (f.builtin)
      return [
        [
          "BuiltIn",
          `${name} is built into the kernel, so no load happened and "${f.module.parameters}" did not apply: the setting must go on the kernel command line as ${commandLineForm(name, f.module.parameters)}`,
        ],
      ];
    if (f.loadedBefore !== null)
      return [
        [
          "LoadedBefore",
          `${name} was already loaded before the declared modules ran (${f.loadedBefore}), so "${f.module.parameters}" did not apply`,
        ],
      ];
    if (f.loadError !== null)
      return [
        [
          "LoadFailed",
          `${name} did not load with "${f.module.parameters}": ${f.loadError}; check the name against the modules the release carries (its boot-modules.json)`,
        ],
      ];
    return [];
  });
  const [first] = failures;
  if (first)
    return {
      modules,
      condition: {
        status: "False",
        reason: first[0],
        message: failures.map(([, message]) => message).join("; "),
      },
    };
  return {
    modules,
    condition: {
      status: "True",
      reason: "Applied",
      message: `loaded with their declared parameters: ${facts.map((f) => moduleName(f.module.name)).join(", ")}`,
    },
  };
}

function commandLineForm(name: string, parameters: string): string {
  return parameters
    .split(/\s+/)
    .filter((w) => w !== "")
    .map((w) => `${name}.${w}`)
    .join(" ");
}
