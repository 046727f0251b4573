// The stick's unattended flow, what `liken.install=NAME` runs (docs/install.md, Install
// unattended): the machine to install (auto: the one whose match is this hardware),
// the install once per machine (install-once.ts), the disks under an error, and with
// `liken.report=URL` the report of what happened (send-report.ts), done or failed. The
// hardware report comes in as a function: hwreport/ sits above installer/.
import { readFile } from "node:fs/promises";
import { LikenError } from "../../common/errors.ts";
import { formatSizeShort } from "../../common/size.ts";
import { inventoryDisks } from "../../hardware/disks/index.ts";
import { renderDisks } from "../../hardware/disks/render.ts";
import { readMachineIdentity } from "../../hardware/machine-identity.ts";
import { releaseMissingDrivers } from "../../hardware/missing-drivers.ts";
import { recoveryKeyWords } from "../recovery-key-words.ts";
import { chooseMachine, describeIdentity } from "./choose-machine.ts";
import { type InstallOnceOutcome, type InstallOnceRequest, installOnce } from "./install-once.ts";
import { networkToReport } from "./report-network.ts";
import { sendReport } from "./send-report.ts";

/** What `liken.install=auto` asks for: the machine whose match is this hardware. */
const AUTO = "auto";

/** What install-once takes, but `as` for its machine: a machine of the manifest, or AUTO. */
export interface UnattendedRunRequest
  extends Omit<InstallOnceRequest, "machine" | "say" | "onEvent"> {
  readonly as: string;
  /** Where the report goes (an http or https URL); no report without it. */
  readonly reportUrl?: string;
  /** The hardware report (hwreport --json) for the report: `machine` is null when auto found none. */
  readonly hardwareReport: (machine: string | null) => Promise<unknown>;
  /**
   * Gives the report a way out and says which (a NIC, "the existing route"); throws saying
   * why there is none. When not given: the machine's declared network, or DHCP on the first
   * NIC with carrier when it declares no interface.
   */
  readonly bringUpNetwork?: () => Promise<string>;
  /** The consoles: each text ends with a newline. */
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** Runs the flow; throws what stopped the install, after the disks and the report. */
export async function runUnattended(request: UnattendedRunRequest): Promise<InstallOnceOutcome> {
  const { then } = request;
  let machine: string | null = null;
  let recoveryKey: string | undefined;
  try {
    machine = request.as === AUTO ? await machineOfThisHardware(request) : request.as;
    const outcome = await installOnce({
      manifest: request.manifest,
      machine,
      releaseDir: request.releaseDir,
      wipe: request.wipe,
      ...(request.repair ? { repair: true } : {}),
      paths: request.paths,
      statusFile: request.statusFile,
      recordFile: request.recordFile,
      ...(request.efivars ? { efivars: request.efivars } : {}),
      then,
      say: (line) => request.out(`${line}\n`),
      onEvent: (e) => {
        if (e.type === "step") request.out(`» ${e.what}\n`);
        else if (e.done === e.total)
          request.out(`  ${formatSizeShort(e.total)} written and verified\n`);
      },
      recoveryTo: request.reportUrl ? ["report", "console"] : ["console"],
    });
    if (outcome.result === "installed" && outcome.recoveryKey) {
      recoveryKey = outcome.recoveryKey;
      if (request.manifest.encryption?.recovery === "console")
        request.out(recoveryKeyWords(machine, recoveryKey));
    }
    return outcome;
  } catch (error) {
    // A machine auto could not name has printed what it is instead.
    if (machine !== null) await listDisks(request);
    throw error;
  } finally {
    if (request.reportUrl) {
      const sent = request.manifest.encryption?.recovery === "report" ? recoveryKey : undefined;
      await reportTo(request.reportUrl, machine, request, sent);
    }
  }
}

/** The manifest machine whose match is this hardware, or a refusal that lists what it saw. */
async function machineOfThisHardware(request: UnattendedRunRequest): Promise<string> {
  const identity = await readMachineIdentity();
  const choice = chooseMachine(request.manifest.machines, identity);
  const seen = `this machine: ${describeIdentity(identity)}`;
  if (choice.kind === "one") {
    request.out(`liken-stick: ${seen}; it is ${choice.machine} in the manifest\n`);
    return choice.machine;
  }
  request.err(`liken-stick: ${seen}\n`);
  if (choice.kind === "many")
    throw new LikenError({
      kind: "refused",
      what: `${choice.machines.join(" and ")} all match this hardware`,
      hint: "make their matches in the manifest tell them apart, or boot with liken.install=NAME",
      reason: "MachineNotMatched",
    });
  for (const near of choice.near)
    request.err(
      `liken-stick: ${near.machine} came close: its ${near.agreed.join(" and ")} agreed, its ${near.differed.join(" and ")} did not\n`,
    );
  throw new LikenError({
    kind: "refused",
    what: "no machine of the manifest matches this hardware",
    hint: "add this machine's MAC, serial or UUID to its match in the manifest, or boot with liken.install=NAME",
    reason: "MachineNotMatched",
  });
}

// Under the error line (the command prints it), every disk with its verdict, as install does.
async function listDisks(request: UnattendedRunRequest): Promise<void> {
  // Without the release's verdicts the disks are listed without missing drivers.
  const missing = await releaseMissingDrivers(request.releaseDir).catch(() => undefined);
  // The disks are context for the error thrown after them: none listed rather than a second error.
  const disks = await inventoryDisks({ paths: request.paths, missingDrivers: missing }).catch(
    () => [],
  );
  request.err(renderDisks(disks));
}

/** Sends the report of the install to `url`; says what came of it, and never throws. */
async function reportTo(
  url: string,
  machine: string | null,
  request: UnattendedRunRequest,
  recoveryKey: string | undefined,
): Promise<void> {
  const say = (line: string) => request.out(`liken-stick: ${line}\n`);
  let via: string;
  try {
    via = await networkForReport(request, machine, url, say);
  } catch (error) {
    say(`report not sent to ${url}: ${(error as Error).message} (the install is not affected)`);
    return;
  }
  say(`sending the report to ${url} by ${via}`);
  // The report goes without the installer's status when it cannot be read.
  const status = await readFile(request.statusFile, "utf8").then(
    (t) => JSON.parse(t) as unknown,
    () => null,
  );
  // The report goes without the hardware section when it cannot be made; the install is done.
  const hardware = await request.hardwareReport(machine).catch(() => null);
  const outcome = await sendReport(url, {
    schema: "liken-install-report/1",
    machine,
    status,
    hardware,
    // recovery = "report": the one place the key goes (docs/install.md, Encryption).
    ...(recoveryKey ? { recoveryKey } : {}),
  });
  say(
    outcome.sent
      ? `report sent to ${url} (${outcome.detail})`
      : `report not sent to ${url} after ${outcome.tries} tries: ${outcome.detail} (the install is not affected${recoveryKey ? "; its recovery key is lost: the machine boots, and only a wipe and reinstall opens its disks if the TPM ever refuses" : ""})`,
  );
}

// The one place the report's network comes up: the request's way, else the machine's
// declared network, else DHCP.
function networkForReport(
  request: UnattendedRunRequest,
  machine: string | null,
  url: string,
  say: (line: string) => void,
): Promise<string> {
  if (request.bringUpNetwork) return request.bringUpNetwork();
  const declared = request.manifest.machines.find((m) => m.name === machine);
  return networkToReport(declared, url, say);
}
