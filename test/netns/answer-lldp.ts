// Run inside a test's network namespace as a switch's port (`ip netns exec NS node --import
// tsx test/netns/answer-lldp.ts IFACE FRAME_HEX MS`): sends FRAME_HEX every 300 ms for MS,
// as a switch with a short interval would, and prints `ready` once it listens, then the
// neighbour it heard as JSON (null when none spoke).
import { parseLldpFrame } from "../../formats/lldp.ts";
import { captureFrames, sendFrame } from "../../tools/socat.ts";

const [iface = "", hex = "", ms = "4000"] = process.argv.slice(2);
const own = Buffer.from(hex, "hex");
const started = Date.now();
const heard = captureFrames({
  iface,
  ms: Number(ms),
  max: 1,
  keep: (f) => parseLldpFrame(f) !== null && !f.subarray(6, 12).equals(own.subarray(6, 12)),
});
// socat opens its socket within milliseconds of starting; 300 ms is ample.
await new Promise((resolve) => setTimeout(resolve, 300));
process.stdout.write("ready\n");
const sending = setInterval(() => void sendFrame(iface, own), 300);
const [frame] = await heard;
// It speaks for all of MS, whether or not it heard the neighbour early.
await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + Number(ms) - Date.now())));
clearInterval(sending);
process.stdout.write(`${JSON.stringify(frame ? parseLldpFrame(frame) : null)}\n`);
