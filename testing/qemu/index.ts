// The QEMU machine the tests, the benches and the developer's scripts boot: the spec
// (machine.ts), its board (board.ts), its command line (args.ts), the firmware (ovmf.ts), the
// accelerator (accel.ts).
export * from "./accel.ts";
export * from "./args.ts";
export * from "./board.ts";
export * from "./machine.ts";
export * from "./ovmf.ts";
