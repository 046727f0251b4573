// The harness under the name the first end-to-end test imports it by: see harness.ts.
export { startVm, stopAllVms, Vm, type VmExit, type VmOptions } from "./harness.ts";
