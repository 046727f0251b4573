// ping(8), iputils' on the host: whether a machine answers from a test's network namespace,
// with a payload size and the don't-fragment bit (`-M do`), so that a jumbo ping proves
// every link on the way carries the MTU rather than fragments. Only the tests ping.
import { run } from "../../tools/exec.ts";
import { inNamespace } from "../../tools/ip.ts";

export interface PingOptions {
  /** ICMP payload bytes: 8972 fills a 9000-byte MTU (20 of IPv4, 8 of ICMP). */
  readonly payload?: number;
  /** Set don't-fragment, and refuse to send a packet larger than the route's MTU. */
  readonly dontFragment?: boolean;
  readonly count?: number;
  /** Seconds to wait for each reply. */
  readonly waitSeconds?: number;
}

export interface PingResult {
  readonly answered: boolean;
  /** ping's output (or, when it failed, its message). */
  readonly output: string;
}

/** Pings `target` from namespace `ns`; a ping that gets no reply is an answer, not a throw. */
export async function pingFrom(
  ns: string,
  target: string,
  o: PingOptions = {},
): Promise<PingResult> {
  const args = [
    "-n",
    ...["-c", String(o.count ?? 1)],
    ...["-W", String(o.waitSeconds ?? 2)],
    ...(o.payload === undefined ? [] : ["-s", String(o.payload)]),
    ...(o.dontFragment ? ["-M", "do"] : []),
    target,
  ];
  // ping exits 1 when no reply came and 2 on another failure (a packet larger than the
  // route's MTU with -M do): both are answers here, and the output says which.
  const result = await run("ip", inNamespace(ns, "ping", args), {
    timeoutMs: 60_000,
    okExitCodes: [1, 2],
  });
  return { answered: result.exitCode === 0, output: `${result.stdout}${result.stderr}`.trim() };
}

/** Pings `target` once a second until it answers; throws with the last output after `timeoutMs`. */
export async function waitForPing(
  ns: string,
  target: string,
  o: PingOptions = {},
  timeoutMs = 30_000,
): Promise<PingResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await pingFrom(ns, target, { waitSeconds: 1, ...o });
    if (result.answered) return result;
    if (Date.now() >= deadline)
      throw new Error(
        `${target} did not answer ping from ${ns} within ${timeoutMs / 1000} s: ${result.output}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
