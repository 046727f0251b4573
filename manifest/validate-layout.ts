// [layout]: the sizes of the system partitions.
import { GIB } from "../common/size.ts";
import type { Check } from "./check.ts";
import { readSize } from "./check-size.ts";
import { LAYOUT_KEYS } from "./keys.ts";
import { formatSize, LAYOUT_DEFAULTS, MINIMUMS } from "./size.ts";
import { isTable, quoted, type TomlTable } from "./toml-values.ts";
import type { Layout } from "./types.ts";

/** Below this a release's root filesystem is unlikely to fit, though the installer allows it. */
const COMFORTABLE_SLOT = GIB;

export function readLayout(ck: Check, doc: TomlTable): Layout | undefined {
  const layout = doc.layout;
  if (layout === undefined) return { ...LAYOUT_DEFAULTS };
  if (!isTable(layout)) {
    const hint = Array.isArray(layout)
      ? "write [layout] once, with single brackets"
      : 'write [layout] with sizes on the lines below it, e.g. slot = "2GiB"';
    ck.wrongType(["layout"], layout, "layout", "a table", hint);
    return undefined;
  }
  ck.unknownKeys(layout, ["layout"], LAYOUT_KEYS, "in [layout]");
  const size = (key: keyof Layout): number | undefined => {
    if (layout[key] === undefined) return LAYOUT_DEFAULTS[key];
    const bytes = readSize(ck, ["layout", key], layout[key], {
      label: `layout.${key}`,
      rest: false,
      minimum: MINIMUMS[key],
      partition: true,
    });
    return typeof bytes === "number" ? bytes : undefined;
  };
  const esp = size("esp");
  const slot = size("slot");
  const crash_journal = size("crash_journal");
  const state = size("state");
  if (slot !== undefined && slot < COMFORTABLE_SLOT) {
    ck.warn(
      ck.valuePos(["layout", "slot"]),
      `layout.slot ${quoted(layout.slot, ck.raw(["layout", "slot"]))} is smaller than 1GiB`,
      `a release's root filesystem image must fit in a slot; the default is ${JSON.stringify(formatSize(LAYOUT_DEFAULTS.slot))}`,
    );
  }
  if (
    esp === undefined ||
    slot === undefined ||
    crash_journal === undefined ||
    state === undefined
  ) {
    return undefined;
  }
  return { esp, slot, crash_journal, state };
}
