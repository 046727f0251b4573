// Fault injection for the install tests, from the outside: the test bundle (test/cli-entry.ts)
// loads this before the command, and it listens on the channels the installer publishes
// its steps and its image writes on. LIKEN_TEST_KILL_AT=STEP dies with SIGKILL when that
// step begins (its status document already written); LIKEN_TEST_KILL_AFTER_BYTES=N dies
// once an image write has written N bytes; LIKEN_TEST_KILL_AFTER_ERASED=N once the erase
// of a wipe has zeroed N bytes of a disk; LIKEN_TEST_KILL_AFTER_COMPLETE=N once N disks
// are marked complete.
import { subscribe } from "node:diagnostics_channel";
import { WRITE_IMAGE_CHANNEL, type WriteImageMessage } from "../formats/write-image.ts";
import { ERASE_CHANNEL, type EraseMessage } from "../installer/erase.ts";
import {
  CLAIM_CHANNEL,
  type ClaimMessage,
  INSTALL_STEP_CHANNEL,
  type InstallStepMessage,
} from "../installer/install.ts";

const killAt = process.env.LIKEN_TEST_KILL_AT;
const killAfter = Number(process.env.LIKEN_TEST_KILL_AFTER_BYTES ?? Number.NaN);
const killAfterErased = Number(process.env.LIKEN_TEST_KILL_AFTER_ERASED ?? Number.NaN);
const killAfterComplete = Number(process.env.LIKEN_TEST_KILL_AFTER_COMPLETE ?? Number.NaN);

function die(): void {
  process.kill(process.pid, "SIGKILL");
}

if (killAt) {
  subscribe(INSTALL_STEP_CHANNEL, (message) => {
    if ((message as InstallStepMessage).step === killAt) die();
  });
}
if (Number.isFinite(killAfter)) {
  subscribe(WRITE_IMAGE_CHANNEL, (message) => {
    if ((message as WriteImageMessage).written >= killAfter) die();
  });
}
if (Number.isFinite(killAfterErased)) {
  subscribe(ERASE_CHANNEL, (message) => {
    if ((message as EraseMessage).erased >= killAfterErased) die();
  });
}
if (Number.isFinite(killAfterComplete)) {
  let complete = 0;
  subscribe(CLAIM_CHANNEL, (message) => {
    if ((message as ClaimMessage).complete && ++complete >= killAfterComplete) die();
  });
}
