// The command as the tests run it (dist/liken-stick-test.cjs): the kill points first, so
// they listen before the command starts, then the command itself with the developer's `vm`
// beside the stick's verbs (test/qemu/vm-verb.test.ts runs it as `npm run vm` does).
import "./kill-points.ts";
import { runAsProgram } from "../cli/main.ts";
import { VERBS } from "../cli/verbs.ts";
import { vmVerb } from "../testing/vm-verb.ts";

runAsProgram([...VERBS, vmVerb]);
