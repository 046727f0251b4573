// The hardware report: what the machine is, which driver each disk and NIC needs, which of
// them the release's boot path lacks, and the layout an install would write.

export { findMissingDrivers, releaseMissingDrivers } from "../hardware/missing-drivers.ts";
export { type ProducedReport, produceReport, type ReportRequest } from "./produce.ts";
export { renderReport } from "./render.ts";
export { buildReport, type ReportInput } from "./report.ts";
export { saveReport } from "./save-report.ts";
export { HWREPORT_SCHEMA, type HwReport } from "./types.ts";
