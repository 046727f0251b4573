// The modalias of every device present, as a shell pipeline, for the inits that load
// drivers by device (the stick's root, a release's initramfs). Every device a driver binds
// to sits on a bus, so the buses' device lists give them all (and the CPU's, for its
// feature modules) in one glob: `find /sys/devices -name modalias` walks every attribute of
// every device, 0.8 s of each driver round under emulation.
export const MODALIASES_SH =
  "cat /sys/bus/*/devices/*/modalias /sys/devices/system/cpu/modalias 2>/dev/null | sort -u";
