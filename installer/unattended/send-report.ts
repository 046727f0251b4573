// liken.report=URL: after an unattended install, or its failure, the stick sends what
// happened to a server the operator runs (docs/install.md, Reports over the network): one
// JSON document by HTTP POST, tried a few times within a minute. The machine reboots or
// holds afterwards whatever the answer: the report never decides what the install does.

/** What the stick sends. */
export interface InstallReport {
  readonly schema: "liken-install-report/1";
  /** The machine the stick installed, or tried to; null when auto found none. */
  readonly machine: string | null;
  /** The installer's status document (phase Installed or Failed, with its reason). */
  readonly status: unknown;
  /** The hardware report (`hwreport --json`), or null when it could not be read. */
  readonly hardware: unknown;
}

export interface SendOutcome {
  readonly sent: boolean;
  /** The server's status, or why nothing answered, on the last try. */
  readonly detail: string;
  readonly tries: number;
}

/**
 * POSTs `report` to `url`: each try waits at most 10 s for an answer; a failed try is
 * followed by a wait of 2 s, doubling, until `budgetMs` is spent. A 2xx answer is done.
 */
export async function sendReport(
  url: string,
  report: InstallReport,
  budgetMs = 60_000,
): Promise<SendOutcome> {
  const started = Date.now();
  const body = JSON.stringify(report);
  let wait = 2_000;
  let detail = "not tried";
  for (let tries = 1; ; tries++) {
    try {
      const answer = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      detail = `HTTP ${answer.status}`;
      if (answer.ok) return { sent: true, detail, tries };
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      detail = cause?.code ?? cause?.message ?? (error as Error).message;
    }
    if (Date.now() - started + wait > budgetMs) return { sent: false, detail, tries };
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, 16_000);
  }
}
