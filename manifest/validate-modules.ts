// A machine's `modules`: kernel modules its installed system loads with parameters before
// any driver is loaded by device (docs/manifest.md, modules). Each entry names a module and
// the parameter string modprobe would take after the name.
import type { Check } from "./check.ts";
import { MODULE_KEYS } from "./keys.ts";
import type { KeyPath } from "./locate.ts";
import { isTable, type TomlTable } from "./toml-values.ts";
import type { DeclaredModule } from "./types.ts";

const MODULES_HINT =
  'write modules = [{ name = "ixgbe", parameters = "allow_unsupported_sfp=1" }], one table per module';

/** The kernel's module names: letters, digits, `_` and `-` (which the kernel reads as `_`). */
const MODULE_NAME = /^[A-Za-z0-9_-]{1,55}$/;
/** One parameter word: `name` (a boolean) or `name=value`, the value without spaces or quotes. */
const PARAMETER_WORD = /^[A-Za-z0-9_][A-Za-z0-9_.-]*(=[^\s"']*)?$/;

export function readModules(
  ck: Check,
  entry: TomlTable,
  path: KeyPath,
): DeclaredModule[] | undefined {
  const modules = entry.modules;
  if (modules === undefined) return [];
  const modulesPath = [...path, "modules"];
  if (!Array.isArray(modules)) {
    ck.wrongType(modulesPath, modules, "modules", "an array of tables", MODULES_HINT);
    return undefined;
  }
  const out: DeclaredModule[] = [];
  let ok = true;
  modules.forEach((item: unknown, index) => {
    const itemPath = [...modulesPath, index];
    if (!isTable(item)) {
      ck.wrongType(itemPath, item, "each module", "a table", MODULES_HINT);
      ok = false;
      return;
    }
    const declared = readModule(ck, item, itemPath);
    if (declared === undefined) {
      ok = false;
      return;
    }
    const canonical = declared.name.replaceAll("-", "_");
    if (out.some((m) => m.name.replaceAll("-", "_") === canonical)) {
      ck.error(
        ck.valuePos([...itemPath, "name"]),
        `module ${JSON.stringify(declared.name)} is declared twice`,
        "declare each module once, with all its parameters in one string",
      );
      ok = false;
      return;
    }
    out.push(declared);
  });
  return ok ? out : undefined;
}

function readModule(ck: Check, item: TomlTable, path: KeyPath): DeclaredModule | undefined {
  ck.unknownKeys(item, path, MODULE_KEYS, "in a module");
  if (!("name" in item)) {
    ck.error(ck.valuePos(path), 'missing key "name" in a module', MODULES_HINT);
    return undefined;
  }
  const name = ck.optionalString(item, path, "name", "module name", 'quote it: name = "ixgbe"');
  const parameters = ck.optionalString(
    item,
    path,
    "parameters",
    "parameters",
    'quote them: parameters = "allow_unsupported_sfp=1"',
  );
  if (name === undefined || ("parameters" in item && parameters === undefined)) return undefined;
  if (!MODULE_NAME.test(name)) {
    ck.error(
      ck.valuePos([...path, "name"]),
      `module name ${JSON.stringify(name)} is not a kernel module name`,
      "a module name has letters, digits, _ and -, as lsmod prints it",
    );
    return undefined;
  }
  const words = (parameters ?? "").split(/\s+/).filter((w) => w !== "");
  const bad = words.find((w) => !PARAMETER_WORD.test(w));
  if (bad !== undefined) {
    ck.error(
      ck.valuePos([...path, "parameters"]),
      `parameter ${JSON.stringify(bad)} of module ${name} is not NAME or NAME=VALUE`,
      "separate parameters with spaces; a value has no spaces or quotes",
    );
    return undefined;
  }
  if (words.length === 0) {
    ck.error(
      ck.valuePos(path),
      `module ${name} declares no parameters`,
      'add parameters = "NAME=VALUE", or remove the module: drivers load by device without it',
    );
    return undefined;
  }
  return { name, parameters: words.join(" ") };
}
