// Makes free text safe for a status document: one short line, with PEM blocks, tokens,
// passwords and long secret-looking runs redacted. Hashes and UUIDs stay: they help, and
// they are not secrets.
const MAX_LENGTH = 300;

export function sanitizeMessage(text: string): string {
  let s = text.replace(
    /-----BEGIN [A-Z ]+-----[\s\S]*?(-----END [A-Z ]+-----|$)/g,
    "[redacted PEM block]",
  );
  s = s.replace(
    /\b(bearer|token|password|passwd|secret|key)(\s*[:=]\s*|\s+)("[^"]*"|'[^']*'|\S+)/gi,
    "$1$2[redacted]",
  );
  s = s.replace(/[A-Za-z0-9+/_.=-]{32,}/g, (run) => (looksSafe(run) ? run : "[redacted]"));
  s = s.replace(/\s+/g, " ").trim();
  return s.length > MAX_LENGTH ? `${s.slice(0, MAX_LENGTH - 1)}…` : s;
}

// Paths, hex digests and UUIDs are long but carry no secret; nor do the kernel's call-trace
// frames (`entry_SYSCALL_64_after_hwframe+0x64/0xce`) and `KEY=UUID` words of its log.
function looksSafe(run: string): boolean {
  return (
    /^[0-9a-f]+$/i.test(run) ||
    /^[0-9a-f-]{36}$/i.test(run) ||
    /^[A-Za-z_][\w.]*\+0x[0-9a-f]+\/0x[0-9a-f]+$/.test(run) ||
    /^([A-Za-z_]+=)+[0-9a-f-]{36}$/i.test(run) ||
    (run.includes("/") &&
      /^[\w./-]+$/.test(run) &&
      !/[A-Za-z0-9+]{32,}/.test(run.replaceAll("/", " ")))
  );
}
