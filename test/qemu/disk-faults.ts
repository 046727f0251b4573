// A disk that stops taking writes under a running machine, as a failing drive or a
// controller gone read-only does: QEMU's blkdebug filter put between the disk's raw node
// and its file by QMP blockdev-reopen (QEMU's docs/qemu-block-drivers and qapi/block-core:
// BlkdebugInjectErrorOptions), every write answered EIO while reads and flushes go on; taken
// out again the same way.
import { diskNode } from "../../testing/qemu/index.ts";
import type { Vm } from "./harness.ts";

const FILTER = "write-faults";

// The raw node as the harness's -drive opened it (testing/qemu/args.ts): blockdev-reopen
// sets every option it is not given back to its default.
function rawNode(i: number, file: string) {
  return {
    driver: "raw",
    "node-name": diskNode(i, "format"),
    file,
    discard: "unmap",
    cache: { "no-flush": true },
  };
}

/** From now on, every write to disk `i` of `vm` fails with EIO. */
export async function failWrites(vm: Vm, i = 0): Promise<void> {
  await vm.qmp.execute("blockdev-add", {
    driver: "blkdebug",
    "node-name": FILTER,
    image: diskNode(i, "file"),
    // Writes only: a flush that failed too would fail the blockdev-reopen that heals it.
    "inject-error": [{ event: "write_aio", iotype: "write", errno: 5, once: false }],
  });
  await vm.qmp.execute("blockdev-reopen", { options: [rawNode(i, FILTER)] });
}

/** Disk `i` of `vm` takes writes again. */
export async function healWrites(vm: Vm, i = 0): Promise<void> {
  await vm.qmp.execute("blockdev-reopen", { options: [rawNode(i, diskNode(i, "file"))] });
  await vm.qmp.execute("blockdev-del", { "node-name": FILTER });
}
