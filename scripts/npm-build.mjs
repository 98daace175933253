#!/usr/bin/env node
// Builds ccmem's npm packages from a local binary, in the shape biome uses: the main package
// `ccmem` (npm/ccmem: a JS launcher, no binary) whose optionalDependencies are one package per
// platform, `@ccmem/cli-<os>-<cpu>`, each holding the binary built for it. npm installs only the
// one whose `os`/`cpu`/`libc` match the machine.
//
//   node scripts/npm-build.mjs [--binary target/release/ccmem] [--platform linux-x64] [--out target/npm]
//
// Writes OUT/ccmem/ and OUT/cli-PLATFORM/ and packs both there (`npm pack`): OUT/ccmem-V.tgz and
// OUT/ccmem-cli-PLATFORM-V.tgz. This machine builds linux-x64, and win32-x64 with mingw-w64
// (`cargo build --release --target x86_64-pc-windows-gnu`); the macOS binaries need Apple's
// linker and SDK and are built on a Mac with this same script (--binary, --platform).
//
// A binary is run (`--version`) before it is packed, so a stale one is never published; one built
// for another operating system cannot be run here, so its format (ELF, PE, Mach-O) and the
// version string compiled into it are checked instead, and the script says so.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    binary: { type: "string", default: join(ROOT, "target/release/ccmem") },
    platform: { type: "string", default: `${process.platform}-${process.arch}` },
    out: { type: "string", default: join(ROOT, "target/npm") },
  },
});

function fail(msg) {
  console.error(`npm-build: ${msg}`);
  process.exit(1);
}

const cargoToml = fs.readFileSync(join(ROOT, "Cargo.toml"), "utf8");
const version = /^\[package\][^[]*?^version = "([^"]+)"/ms.exec(cargoToml)?.[1];
if (!version) fail("no [package] version in Cargo.toml");

const main = JSON.parse(fs.readFileSync(join(ROOT, "npm/ccmem/package.json"), "utf8"));
const pinned = [main.version, ...Object.values(main.optionalDependencies)];
if (pinned.some((v) => v !== version)) {
  fail(`npm/ccmem/package.json pins ${pinned.join(", ")}; Cargo.toml says ${version}: make them one`);
}
const pkgName = `@ccmem/cli-${opts.platform}`;
if (!(pkgName in main.optionalDependencies)) {
  fail(`${opts.platform} is not one of ${Object.keys(main.optionalDependencies).join(", ")}`);
}
const [os, cpu] = opts.platform.split("-");
const exe = os === "win32" ? "ccmem.exe" : "ccmem";

// Never pack a stale binary: it must say the version it is packed as.
if (os === process.platform) {
  const said = execFileSync(opts.binary, ["--version"], { encoding: "utf8" }).trim();
  // `--version` goes on to name the client model and the platform: "ccmem 0.1.0 (models …)".
  if (said !== `ccmem ${version}` && !said.startsWith(`ccmem ${version} (`)) {
    fail(`${opts.binary} --version says "${said}", not "ccmem ${version} (…)"`);
  }
} else {
  const bytes = fs.readFileSync(opts.binary);
  const magic = bytes.subarray(0, 4);
  const format = {
    linux: magic.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])),
    win32: magic.subarray(0, 2).equals(Buffer.from("MZ")),
    darwin: [0xfeedfacf, 0xcffaedfe].includes(magic.readUInt32BE(0)),
  }[os];
  if (!format) fail(`${opts.binary} is not a ${os} executable`);
  // The version clap prints is CARGO_PKG_VERSION, compiled in as its own string.
  if (!bytes.includes(Buffer.from(`${version}`)) || !bytes.includes(Buffer.from("ccmem"))) {
    fail(`${opts.binary} holds no "ccmem" and "${version}": not this version's build`);
  }
  console.error(
    `npm-build: ${opts.binary} is built for ${os}, not this machine: its format and version ` +
      "string were checked, it was not run",
  );
}

const out = resolve(opts.out);
const mainDir = join(out, "ccmem");
const platDir = join(out, `cli-${opts.platform}`);
for (const dir of [mainDir, platDir]) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(join(ROOT, "LICENSE"), join(dir, "LICENSE"));
}

fs.cpSync(join(ROOT, "npm/ccmem"), mainDir, { recursive: true });
const platform = {
  name: pkgName,
  version,
  description: `The ccmem binary for ${opts.platform} (installed by the \`ccmem\` package)`,
  license: main.license,
  repository: main.repository,
  files: [exe, "README.md", "LICENSE"],
  os: [os],
  cpu: [cpu],
  ...(os === "linux" ? { libc: ["glibc"] } : {}),
  preferUnplugged: true,
};
fs.writeFileSync(join(platDir, "package.json"), `${JSON.stringify(platform, null, 2)}\n`);
fs.writeFileSync(
  join(platDir, "README.md"),
  `# ${pkgName}\n\nThe \`ccmem\` binary for ${opts.platform}. Install \`ccmem\` instead ` +
    "(`npm i -g ccmem`): it depends on this package and runs the binary.\n",
);
fs.copyFileSync(opts.binary, join(platDir, exe));
fs.chmodSync(join(platDir, exe), 0o755);

for (const dir of [platDir, mainDir]) {
  const packed = execFileSync("npm", ["pack", "--pack-destination", out], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  console.log(join(out, packed.trim().split("\n").pop()));
}
