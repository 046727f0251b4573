// tmux, for the menu's terminal tests: a real pseudo-terminal of a chosen size, its screen
// read back as text and keys typed into it. Every call names a private server socket (-L),
// so the tests never touch a tmux the person running them uses.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { run } from "../tools/exec.ts";

export interface TmuxServer {
  /** The socket name under tmux's socket folder (tmux -L). */
  readonly socket: string;
  /** A tmux.conf, or /dev/null for none (-f). */
  readonly config: string;
}

/** Starts `command` (argument array, no shell) in a new detached session of cols x rows. */
export async function newSession(
  server: TmuxServer,
  name: string,
  size: { readonly cols: number; readonly rows: number },
  command: readonly string[],
  cwd?: string,
): Promise<void> {
  await run(
    "tmux",
    [
      ...base(server),
      "new-session",
      "-d", // detached: no client, the test reads the pane instead
      "-s",
      name,
      "-x",
      String(size.cols),
      "-y",
      String(size.rows),
      "--",
      ...command,
      // The server stays when its last session ends (killServer ends it): a server that
      // exits as the next test's new-session reaches its socket fails that test at once.
      ";",
      "set-option",
      "-g",
      "exit-empty",
      "off",
    ],
    cwd ? { cwd } : {},
  );
}

/** The pane's visible screen, one line per row, trailing spaces dropped. */
export async function capturePane(server: TmuxServer, target: string): Promise<string> {
  return (await run("tmux", [...base(server), "capture-pane", "-p", "-t", target])).stdout;
}

/** Key names as tmux spells them (Enter, Down, Escape, NPage), or text typed as it is. */
export async function sendKeys(
  server: TmuxServer,
  target: string,
  keys: readonly string[],
  options: { readonly literal?: boolean } = {},
): Promise<void> {
  await run("tmux", [
    ...base(server),
    "send-keys",
    "-t",
    target,
    ...(options.literal ? ["-l"] : []),
    ...keys,
  ]);
}

/** Ends the session; one that is already gone is fine. */
export async function killSession(server: TmuxServer, name: string): Promise<void> {
  await run("tmux", [...base(server), "kill-session", "-t", name], { okExitCodes: [1] });
}

/** Ends the server and every session left on it, and removes its socket; no server is fine. */
export async function killServer(server: TmuxServer): Promise<void> {
  await run("tmux", [...base(server), "kill-server"], { okExitCodes: [1] });
  // tmux leaves the socket file behind: $TMUX_TMPDIR (or /tmp)/tmux-UID/NAME.
  const folder = join(process.env.TMUX_TMPDIR || "/tmp", `tmux-${process.getuid?.() ?? 0}`);
  await rm(join(folder, server.socket), { force: true });
}

function base(server: TmuxServer): string[] {
  return ["-L", server.socket, "-f", server.config];
}
