// What the image build is made from: pinned Debian packages, the pinned Node.js binary,
// the shared libraries the tools need, and the kernel modules the initramfs carries.
export { defaultCacheDir } from "./cache.ts";
export {
  type LockedDeb,
  packagesLockPath,
  readPackagesLock,
  requireDebianPackages,
  unpackDebs,
} from "./debian.ts";
export { type ElfInfo, findElfInfo, LIBRARY_DIRS, libraryDirs, resolveLibraries } from "./elf.ts";
export {
  allDriversUnder,
  type BootModules,
  bootModules,
  decompressedPath,
  decompressModule,
  decompressModules,
  type FirmwareFile,
  type ModuleEntry,
  type ModuleIndex,
  moduleClosure,
  moduleName,
  netbootModules,
  readModuleIndex,
  releaseBootModules,
  resolveModalias,
  STICK_DRIVER_PREFIXES,
  STICK_NAMED_MODULES,
  stickModules,
} from "./modules.ts";
export {
  type NodeLock,
  nodeLockPath,
  readNodeLock,
  requireNodeBinary,
} from "./node.ts";
