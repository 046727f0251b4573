// A top-of-rack switch for the QEMU tests, as a VM (docs/design.md, the tests): the host's
// kernel has no bonding and no 8021q, Debian's kernel in a small VM has both. Cables
// (cable.ts) join its downlinks to the machine under test, its uplink is a tap into the
// test's network namespace (uplink.ts), and its console says ready and every state change
// (config.ts, init-script.ts). startSwitchVm() in start.ts.
export { CABLE_SPEED_MBPS, type Cable, cable, cables } from "./cable.ts";
export { configWords, fullConfig, type Lag, MAX_DOWNLINKS, type PeerConfig } from "./config.ts";
export { type NamedConsole, withConsoles } from "./consoles.ts";
export { READY, SWITCH_MODULES, switchInit } from "./init-script.ts";
export { type SwitchBootFiles, switchBootFiles } from "./initramfs.ts";
export { type PingOptions, type PingResult, pingFrom, waitForPing } from "./ping.ts";
export { type SwitchVm, type SwitchVmOptions, startSwitchVm, switchMac } from "./start.ts";
export { startUplinkNamespace, type UplinkNamespace, uplinkTapScript } from "./uplink.ts";
