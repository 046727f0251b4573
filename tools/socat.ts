// socat(1), Debian's, on the stick: raw Ethernet frames on one interface (its INTERFACE
// address is a PF_PACKET socket), so the hardware report can hear a switch's LLDP and send
// its own without a daemon. Frames come back through `-x`, which prints each transfer as a
// header line and its bytes in hex: one transfer is one frame, its bounds kept.
import { type RunOptions, run, start } from "./exec.ts";

export interface CaptureRequest {
  readonly iface: string;
  /** How long to listen at most. */
  readonly ms: number;
  /** Keeps a frame when true; a capture keeps at most `max` of them. */
  readonly keep: (frame: Buffer) => boolean;
  readonly max: number;
}

/** The frames `keep` chose, in arrival order; [] when socat cannot listen (not root, no interface). */
export async function captureFrames(request: CaptureRequest): Promise<Buffer[]> {
  const socat = await start("socat", ["-u", "-x", `INTERFACE:${request.iface}`, "OPEN:/dev/null"], {
    stderr: "pipe",
  });
  const kept: Buffer[] = [];
  const reader = new HexDumpReader((frame) => {
    if (kept.length < request.max && request.keep(frame)) kept.push(frame);
    if (kept.length >= request.max) socat.kill("SIGKILL");
  });
  socat.stderr?.setEncoding("utf8");
  socat.stderr?.on("data", (chunk: string) => reader.push(chunk));
  const timer = setTimeout(() => socat.kill("SIGKILL"), request.ms);
  // However socat ends (killed at the deadline, or it could not open the interface), the
  // frames read so far are the answer.
  await socat.exited.catch(() => undefined);
  clearTimeout(timer);
  return kept;
}

/** Sends one Ethernet frame (destination MAC first) out of `iface`. */
export async function sendFrame(
  iface: string,
  frame: Uint8Array,
  options: Pick<RunOptions, "timeoutMs"> = {},
): Promise<void> {
  await run("socat", ["-u", "STDIN", `INTERFACE:${iface}`], {
    input: frame,
    timeoutMs: options.timeoutMs ?? 5_000,
  });
}

/**
 * socat -x's dump, read as it arrives: `> 2026/12/05 06:43:24.000209589  length=49 from=0
 * to=48` then the bytes as hex pairs on the next line(s), until the next header.
 */
export class HexDumpReader {
  private pending = "";
  private hex: string[] = [];
  private length: number | null = null;

  constructor(private readonly onFrame: (frame: Buffer) => void) {}

  push(chunk: string): void {
    this.pending += chunk;
    const lines = this.pending.split("\n");
    this.pending = lines.pop() ?? "";
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    const header = /^[<>] .*\blength=(\d+)\b/.exec(line);
    if (header) {
      this.length = Number(header[1]);
      this.hex = [];
      return;
    }
    if (this.length === null) return;
    this.hex.push(
      ...line
        .trim()
        .split(/\s+/)
        .filter((h) => /^[0-9a-f]{2}$/i.test(h)),
    );
    if (this.hex.length >= this.length) {
      this.onFrame(Buffer.from(this.hex.slice(0, this.length).join(""), "hex"));
      this.length = null;
      this.hex = [];
    }
  }
}
