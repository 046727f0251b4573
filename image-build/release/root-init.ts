// The /sbin/init of the project's test release root (docs/rollback.md, What a release's
// root does): it makes the root's runtime folders, runs the liken boot agent (which arms
// the trial's watchdog, runs the root's health checks in /usr/lib/liken/health.d, blesses
// or rejects, stages and writes the status) and acts on how it ended: after a complete boot
// it runs the agent's watch (agent/watch/) as a service. A real release's
// root does the same from its own init (a systemd root: docs/rollback.md).
//
// A test release's variant (image-build/release/variant.ts) may add lines the init runs
// before the agent: testing/release-variant.ts's faults `root` and `hang` live there.
import { TRIAL_MARK } from "../../formats/boot-interface.ts";
import { AS_RELEASED, type ReleaseVariant } from "./variant.ts";

/** The boot agent's bundle in the root, and the file that starts it with its code cache. */
export const AGENT_BUNDLE = "/usr/lib/liken/agent.cjs";
export const AGENT_START = "/usr/lib/liken/start.cjs";

import { RELEASE_SAY_AND_HOLD } from "./init-script.ts";

export function rootInit(variant: Pick<ReleaseVariant, "initLines"> = AS_RELEASED): string {
  return `#!/bin/busybox sh
/bin/busybox mkdir -p /run/bin
/bin/busybox --install -s /run/bin
# The root's own tools (iproute2's ip) before busybox's applets of the same name.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:/run/bin
mount -t tmpfs -o mode=1777 tmpfs /tmp
# The kernel's own module requests (a filesystem at mount) go to the root's modprobe, and
# the state partition's ext4 loads beside Node.js's start: the boot agent mounts it first.
echo /run/bin/modprobe > /proc/sys/kernel/modprobe
modprobe -qa ext4 crc32c_generic 2>/dev/null &

${RELEASE_SAY_AND_HOLD}${variant.initLines}
node ${AGENT_START}
rc=$?
# The boot is up: the agent's watch runs as a service (a new spec, a plugged-in update
# medium, a release named by url), started again 10 s after it ends. It never resets the
# machine: a watch that fails leaves the running release running.
if [ "$rc" -eq 0 ]; then
  while :; do
    node ${AGENT_START} watch
    say "liken: the agent's watch ended with code $?; it starts again in 10 s"
    sleep 10
  done
fi
# A trial never holds: whatever stopped the agent (3 is a held boot), the machine resets
# and the proven slot boots.
if [ -e ${TRIAL_MARK} ]; then
  say "liken: the boot agent ended with code $rc during a trial; resetting in 10 s"
  sleep 10
  sync
  reboot -f
fi
[ "$rc" -eq 3 ] || say "liken: the boot agent ended with code $rc"
hold
`;
}
