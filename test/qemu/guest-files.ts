// Files in and out of a guest through its serial-console shell (guest-shell.ts), for
// guests with no network or shared folder: a local file goes in as typed base64, a guest
// folder's tree comes back as one console line per file, link or folder.
import { mkdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { shell } from "./guest-shell.ts";
import type { Vm } from "./harness.ts";

// Busybox's line editor takes at most 1024 characters a line: a file goes in pieces.
const PIECE = 200;

/** Writes the local file `localPath` to `guestPath` in the guest (gzip'd, typed as base64). */
export async function sendFile(vm: Vm, localPath: string, guestPath: string): Promise<void> {
  const text = gzipSync(await readFile(localPath)).toString("base64");
  const b64 = `${guestPath}.b64`;
  for (let at = 0; at < text.length; at += PIECE)
    // The first piece truncates, so a file sent twice comes out once.
    await shell(
      vm,
      `printf %s ${text.slice(at, at + PIECE)} ${at === 0 ? ">" : ">>"} ${b64}; echo "piece ""${at}"`,
      new RegExp(`^piece ${at}$`),
    );
  await shell(vm, `base64 -d < ${b64} | gunzip > ${guestPath} && echo "sent ""ok"`, /^sent ok$/);
}

/** Which guest tree copyTreeOut copies. */
export interface GuestTree {
  /** The guest folder `find` runs in. */
  readonly dir: string;
  /**
   * `find`'s start and options, relative to `dir`: "sys" (sys itself and below), or
   * ". -mindepth 1" (everything below). Its first word is what every path starts with.
   */
  readonly find: string;
  /** How long the dump may take: every file's bytes cross the console, slow under TCG. */
  readonly timeoutMs: number;
}

// Markers the guest prints; typed with a break ("CAP""TURE") so the echo of the command
// line never matches them.
const BEGIN = "CAPTURE-BEGIN";
const END = "CAPTURE-END";

/**
 * Replaces the local folder `dest` with a copy of the guest's `tree` (files, folders,
 * links as links). Resolves with how many entries and files came over.
 */
export async function copyTreeOut(
  vm: Vm,
  tree: GuestTree,
  dest: string,
): Promise<{ entries: number; files: number }> {
  const dump = [
    `cd ${tree.dir} && echo "${BEGIN.slice(0, 4)}""${BEGIN.slice(4)}";`,
    `find ${tree.find} | sort | while read -r p; do`,
    'if [ -L "$p" ]; then echo "L $p $(readlink "$p")";',
    'elif [ -d "$p" ]; then echo "D $p";',
    'else echo "F $p $(base64 -w 0 < "$p")"; fi; done;',
    `echo "${END.slice(0, 4)}""${END.slice(4)}"`,
  ].join(" ");
  await shell(vm, dump, new RegExp(`^${END}$`), tree.timeoutMs);
  const lines = vm
    .console()
    .split("\n")
    .map((l) => l.trim());
  const begin = lines.lastIndexOf(BEGIN);
  const end = lines.lastIndexOf(END);
  if (begin < 0 || end < begin) throw new Error(`no capture on the console:\n${vm.tail()}`);
  const entries = lines.slice(begin + 1, end);
  const top = tree.find.split(" ")[0] ?? "";
  await rm(dest, { recursive: true, force: true });
  await mkdir(dest, { recursive: true });
  let files = 0;
  for (const line of entries) {
    const [kind, path = "", value = ""] = line.split(" ");
    // A line from elsewhere (a kernel message amid the dump) must not land in the fixture.
    if (path !== top && !path.startsWith(`${top}/`))
      throw new Error(`not a capture line: ${JSON.stringify(line)}`);
    const target = join(dest, path);
    if (kind === "D") await mkdir(target, { recursive: true });
    else if (kind === "L") {
      await mkdir(dirname(target), { recursive: true });
      await symlink(value, target);
    } else if (kind === "F") {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, Buffer.from(value, "base64"));
      files++;
    } else throw new Error(`not a capture line: ${JSON.stringify(line)}`);
  }
  // A link whose target the guest did not copy (a device's subsystem/, driver/) gets its
  // folder with an empty .keep, so git keeps it and no link in the copy dangles.
  for (const line of entries.filter((l) => l.startsWith("L "))) {
    const [, path = "", value = ""] = line.split(" ");
    const target = resolve(dirname(join(dest, path)), value);
    if (!(await stat(target).catch(() => undefined))) {
      await mkdir(target, { recursive: true });
      await writeFile(join(target, ".keep"), "");
    }
  }
  return { entries: entries.length, files };
}
