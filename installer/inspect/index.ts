// Reading an installed disk from outside: `inspect`, and the entry-name parser the boot
// path shares with it.

export type { EntryName } from "../../formats/entry-name.ts";
export { entryState, parseEntryName } from "../../formats/entry-name.ts";
export { inspectDisk } from "./inspect.ts";
export { renderInspection } from "./render.ts";
export type * from "./types.ts";
