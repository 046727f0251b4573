// The shell functions both of the stick's inits print and hold with: `say` writes a line to
// every console the kernel writes to (its console= words: "tty0 ttyS0"), so a screen-only
// and a serial-only machine both show what the stick says; `hold` says why and what to do,
// leaves a shell on the screen and the serial port, and never returns (PID 1 must not end).
import { SERIAL_CONSOLES } from "../../common/arch.ts";

export const STICK_SAY_AND_HOLD = `CONSOLES=
# shellcheck disable=SC2013 # the file is one line of words (tty0 ttyS0), split on purpose
for c in $(cat /sys/class/tty/console/active 2>/dev/null); do
  [ -c "/dev/$c" ] && CONSOLES="$CONSOLES /dev/$c"
done
[ -n "$CONSOLES" ] || CONSOLES=/dev/console
say() {
  for c in $CONSOLES; do echo "$*" > "$c" 2>/dev/null; done
}
hold() {
  say "liken-stick: $*"
  say "liken-stick: the console holds here; a shell follows"
  for c in /dev/tty1 ${SERIAL_CONSOLES.map((c) => `/dev/${c}`).join(" ")}; do [ -c "$c" ] && (setsid sh -c "exec sh <$c >$c 2>&1" &); done
  while :; do sleep 3600; done
}`;
