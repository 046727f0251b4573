// Reading an installed disk from outside: `inspect`, and the entry-name parser the boot
// path shares with it.

export type { EntryName } from "./entry-name.ts";
export { entryState, parseEntryName } from "./entry-name.ts";
export { inspectDisk } from "./inspect.ts";
export { renderInspection } from "./render.ts";
export type * from "./types.ts";
