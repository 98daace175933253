#!/usr/bin/env node
// The `ccmem` command of the npm package: finds the binary of the platform package npm
// installed beside this one (an optional dependency, `@ccmem/cli-<os>-<cpu>`, chosen by npm from
// its `os`/`cpu`/`libc` fields) and runs it with the same arguments, standard streams and exit
// status. CCMEM_BINARY names another binary (for testing a build).
"use strict";
const { spawnSync } = require("node:child_process");
const { platform, arch, env, argv, exit } = process;

// The platforms ccmem publishes a package for (see scripts/npm-build.mjs).
const PACKAGES = {
  "linux-x64": "@ccmem/cli-linux-x64",
  "linux-arm64": "@ccmem/cli-linux-arm64",
  "darwin-x64": "@ccmem/cli-darwin-x64",
  "darwin-arm64": "@ccmem/cli-darwin-arm64",
  "win32-x64": "@ccmem/cli-win32-x64",
};

function isMusl() {
  // glibc reports its version to node; musl does not.
  const report = process.report && process.report.getReport && process.report.getReport();
  return Boolean(report && report.header && !report.header.glibcVersionRuntime);
}

function binaryPath() {
  if (env.CCMEM_BINARY) return env.CCMEM_BINARY;
  const pkg = PACKAGES[`${platform}-${arch}`];
  if (!pkg || (platform === "linux" && isMusl())) return null;
  try {
    return require.resolve(`${pkg}/${platform === "win32" ? "ccmem.exe" : "ccmem"}`);
  } catch (e) {
    if (e && e.code !== "MODULE_NOT_FOUND") throw e;
    return null;
  }
}

const bin = binaryPath();
if (!bin) {
  console.error(
    `ccmem: no prebuilt binary for ${platform}-${arch}${platform === "linux" && isMusl() ? " (musl)" : ""} ` +
      "was installed with this npm package (its platform package is missing or not published).\n" +
      "ccmem: install it from source instead: cargo install --locked ccmem " +
      "(or cargo install --locked --git https://github.com/ccmem/ccmem)",
  );
  exit(2);
}
const result = spawnSync(bin, argv.slice(2), { stdio: "inherit" });
if (result.error) {
  console.error(`ccmem: cannot run ${bin}: ${result.error.message}`);
  exit(2);
}
if (result.signal) process.kill(process.pid, result.signal);
exit(result.status === null ? 2 : result.status);
