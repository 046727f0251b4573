// The folders import downward only (docs/design.md section 11 has the table and the why).
// `npm run check` runs `depcruise` with this file; a cycle or an import against the
// direction fails it.
/** Each production folder and the folders it may import, lowest first. */
const LAYERS = {
  common: [],
  tools: ["common"],
  manifest: ["common"],
  formats: ["common", "tools"],
  hardware: ["common", "tools", "formats"],
  installer: ["common", "tools", "manifest", "formats", "hardware"],
  agent: ["common", "tools", "manifest", "formats", "hardware"],
  hwreport: ["common", "tools", "manifest", "formats", "hardware", "installer"],
  "image-build": ["common", "tools", "manifest", "formats"],
  menu: ["common", "tools", "manifest", "formats", "hardware", "installer", "hwreport"],
  cli: [
    "common",
    "tools",
    "manifest",
    "formats",
    "hardware",
    "installer",
    "hwreport",
    "image-build",
    "menu",
  ],
};
const FOLDERS = Object.keys(LAYERS);
const TESTS = "(^test/|\\.test\\.ts$)";
/**
 * Test support: the QEMU machine, QMP, tmux, the captures and the build cache. It may import
 * every production folder; none imports it, so nothing in it ships on the stick.
 */
const TESTING = "testing";

module.exports = {
  forbidden: [
    {
      name: "no-cycle",
      comment: "An import cycle: one of the two files belongs lower, or a shared part does.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "production-imports-no-tests",
      comment: "Production code never imports tests, their fixtures, benchmarks or scripts.",
      severity: "error",
      from: { path: `^(${FOLDERS.join("|")})/`, pathNot: TESTS },
      to: { path: `${TESTS}|^(bench|scripts)/` },
    },
    {
      name: "production-imports-no-testing",
      comment: `Production code never imports ${TESTING}/: what serves the tests stays out of the stick.`,
      severity: "error",
      from: { path: `^(${FOLDERS.join("|")})/`, pathNot: TESTS },
      to: { path: `^${TESTING}/` },
    },
    {
      name: "testing-imports-no-tests",
      comment: `${TESTING}/ serves test/, bench/ and scripts/, and imports none of them.`,
      severity: "error",
      from: { path: `^${TESTING}/`, pathNot: TESTS },
      to: { path: `${TESTS}|^(bench|scripts)/` },
    },
    ...FOLDERS.map((folder) => ({
      name: `${folder}-imports-downward`,
      comment: `${folder}/ may import only ${LAYERS[folder].join(", ") || "node and npm packages"}.`,
      severity: "error",
      from: { path: `^${folder}/`, pathNot: TESTS },
      to: {
        path: `^(${FOLDERS.filter((f) => f !== folder && !LAYERS[folder].includes(f)).join("|")})/`,
      },
    })),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist|hwreport/fixtures|hardware/fixtures)/" },
    includeOnly: "\\.(ts|mts|mjs|cjs|js)$",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
