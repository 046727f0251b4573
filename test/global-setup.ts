// Built once per test run and shared by every test that runs the command (test/cli.ts).
import { bundleTestCommand } from "./cli.ts";

export default async function setup(): Promise<void> {
  await bundleTestCommand();
}
