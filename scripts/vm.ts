// `npm run vm -- [OPTIONS]`: the developer's VM (testing/vm-verb.ts), a stick and/or disks
// in QEMU with the console on this terminal. It is not a verb of the stick's liken-stick,
// which carries no QEMU; it runs through the same dispatcher, so its help, usage errors and
// exit codes read as a verb's.
import { main } from "../cli/main.ts";
import { vmVerb } from "../testing/vm-verb.ts";

process.exitCode = await main(["vm", ...process.argv.slice(2)], undefined, [vmVerb]);
