// On the stick the drivers load by modalias while the command starts (image-build/stick/
// root-init.ts): what lists the machine's disks or NICs waits until they have loaded.
// Elsewhere the file is never there and nothing waits.
import { statSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { STICK_DRIVERS_LOADING } from "../formats/boot-interface.ts";

// The stick's init gives up on its rounds well before this; a stale file must not hang a list.
const MAX_WAIT_MS = 60_000;
const POLL_MS = 50;

/** Resolves once the stick's drivers have loaded (at once off the stick). */
export async function waitForStickDrivers(): Promise<void> {
  const deadline = Date.now() + MAX_WAIT_MS;
  while (Date.now() < deadline && loading()) await sleep(POLL_MS);
}

// A stat answers from memory (tmpfs): at once, not through the thread pool.
function loading(): boolean {
  return statSync(STICK_DRIVERS_LOADING, { throwIfNoEntry: false }) !== undefined;
}
