// Runs in every test file of the "qemu" project (vitest.config.ts): whatever a test left
// running, passed or failed, is stopped when its file is done.
import { afterAll } from "vitest";
import { stopAllVms } from "./harness.ts";

afterAll(stopAllVms);
