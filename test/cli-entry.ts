// The command as the tests run it (dist/liken-stick-test.cjs): the kill points first, so
// they listen before the command starts, then the command itself, which runs on import.
import "./kill-points.ts";
import "../cli/main.ts";
