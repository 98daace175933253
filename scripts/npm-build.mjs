#!/usr/bin/env node
// Builds ccmem's npm packages from a local binary, in the shape biome uses: the main package
// `ccmem` (npm/ccmem: a JS launcher, no binary) whose optionalDependencies are one package per
// platform, `@ccmem/cli-<os>-<cpu>`, each holding the binary built for it. npm installs only the
// one whose `os`/`cpu`/`libc` match the machine.
//
//   node scripts/npm-build.mjs [--binary B] [--platform linux-x64] [--out target/npm]
//   node scripts/npm-build.mjs --all [--out target/npm]
//
// Writes OUT/ccmem/ and OUT/cli-PLATFORM/ and packs both there (`npm pack`): OUT/ccmem-V.tgz and
// OUT/ccmem-cli-PLATFORM-V.tgz. The binary defaults to where `scripts/build-static.sh TRIPLE`
// puts it (target/TRIPLE/release/ccmem[.exe]); `--all` packs every platform whose binary is
// there and names the others with the reason. `scripts/build-static.sh --all` builds linux-x64,
// linux-arm64 (cross-linked) and win32-x64 (mingw-w64) here; the macOS binaries need Apple's
// linker and SDK and are built on a Mac, then packed with this same script (--binary, --platform).
//
// A binary is run (`--version`) before it is packed, so a stale one is never published; one built
// for another operating system or CPU cannot be run here, so its format (ELF, PE, Mach-O), its
// CPU and the version string compiled into it are checked instead, and the script says so.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    binary: { type: "string" },
    platform: { type: "string", default: `${process.platform}-${process.arch}` },
    all: { type: "boolean", default: false },
    out: { type: "string", default: join(ROOT, "target/npm") },
  },
});

// Each platform's Rust target: the default binary is where `scripts/build-static.sh TRIPLE`
// puts it (target/TRIPLE/release/ccmem[.exe]), and what cannot be built here says why.
const TARGETS = {
  "linux-x64": ["x86_64-unknown-linux-gnu", null],
  "linux-arm64": ["aarch64-unknown-linux-gnu", null],
  "win32-x64": ["x86_64-pc-windows-gnu", null],
  "darwin-x64": ["x86_64-apple-darwin", "needs Apple's linker and SDK: build it on a Mac"],
  "darwin-arm64": ["aarch64-apple-darwin", "needs Apple's linker and SDK: build it on a Mac"],
};
function defaultBinary(platform) {
  const [triple] = TARGETS[platform] ?? [];
  const exe = platform.startsWith("win32") ? "ccmem.exe" : "ccmem";
  return join(ROOT, process.env.CARGO_TARGET_DIR ?? "target", triple ?? "", "release", exe);
}

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
const out = resolve(opts.out);
const mainDir = join(out, "ccmem");

// Builds and packs the package of `platform` from `binary`; returns the tarball's path.
function packPlatform(platform, binary) {
  const pkgName = `@ccmem/cli-${platform}`;
  if (!(pkgName in main.optionalDependencies)) {
    fail(`${platform} is not one of ${Object.keys(main.optionalDependencies).join(", ")}`);
  }
  const [os, cpu] = platform.split("-");
  const exe = os === "win32" ? "ccmem.exe" : "ccmem";

  // The format (ELF, PE, Mach-O) and CPU (ELF's e_machine, PE's Machine, Mach-O's cputype),
  // checked first for every binary: one for another platform is never run.
  const bytes = fs.readFileSync(binary);
  const magic = bytes.subarray(0, 4);
  const format = {
    linux: magic.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])),
    win32: magic.subarray(0, 2).equals(Buffer.from("MZ")),
    darwin: [0xfeedfacf, 0xcffaedfe].includes(magic.readUInt32BE(0)),
  }[os];
  if (!format) fail(`${binary} is not a ${os} executable`);
  const machine = {
    linux: () => bytes.readUInt16LE(18),
    win32: () => bytes.readUInt16LE(bytes.readUInt32LE(0x3c) + 4),
    darwin: () => bytes.readUInt32LE(4),
  }[os]();
  const want = {
    linux: { x64: 0x3e, arm64: 0xb7 },
    win32: { x64: 0x8664, arm64: 0xaa64 },
    darwin: { x64: 0x01000007, arm64: 0x0100000c },
  }[os][cpu];
  if (machine !== want) fail(`${binary} is not built for ${cpu} (machine 0x${machine.toString(16)})`);

  // Never pack a stale binary: it must say the version it is packed as.
  if (os === process.platform && cpu === process.arch) {
    const said = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
    // `--version` goes on to name the client model and the platform: "ccmem 0.1.0 (models …)".
    if (said !== `ccmem ${version}` && !said.startsWith(`ccmem ${version} (`)) {
      fail(`${binary} --version says "${said}", not "ccmem ${version} (…)"`);
    }
  } else {
    // The version clap prints is CARGO_PKG_VERSION, compiled in as its own string.
    if (!bytes.includes(Buffer.from(`${version}`)) || !bytes.includes(Buffer.from("ccmem"))) {
      fail(`${binary} holds no "ccmem" and "${version}": not this version's build`);
    }
    console.error(
      `npm-build: ${binary} is built for ${os}-${cpu}, not this machine: its format, CPU and ` +
        "version string were checked, it was not run",
    );
  }
  const platDir = join(out, `cli-${platform}`);
  fs.rmSync(platDir, { recursive: true, force: true });
  fs.mkdirSync(platDir, { recursive: true });
  fs.copyFileSync(join(ROOT, "LICENSE"), join(platDir, "LICENSE"));
  const pkg = {
    name: pkgName,
    version,
    description: `The ccmem binary for ${platform} (installed by the \`ccmem\` package)`,
    license: main.license,
    repository: main.repository,
    files: [exe, "README.md", "LICENSE"],
    os: [os],
    cpu: [cpu],
    ...(os === "linux" ? { libc: ["glibc"] } : {}),
    preferUnplugged: true,
  };
  fs.writeFileSync(join(platDir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  fs.writeFileSync(
    join(platDir, "README.md"),
    `# ${pkgName}\n\nThe \`ccmem\` binary for ${platform}. Install \`ccmem\` instead ` +
      "(`npm i -g ccmem`): it depends on this package and runs the binary.\n",
  );
  fs.copyFileSync(binary, join(platDir, exe));
  fs.chmodSync(join(platDir, exe), 0o755);
  return pack(platDir);
}

function pack(dir) {
  const packed = execFileSync("npm", ["pack", "--pack-destination", out], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return join(out, packed.trim().split("\n").pop());
}

// One platform (--platform, from --binary or its default path), or --all: every platform whose
// binary is at its default path, the others named with the reason. Tarballs on stdout, the
// platforms' first, the main package's last.
const packed = [];
if (opts.all) {
  for (const platform of Object.keys(TARGETS)) {
    const binary = defaultBinary(platform);
    if (fs.existsSync(binary)) {
      packed.push(packPlatform(platform, binary));
      console.error(`npm-build: packed ${platform} from ${binary}`);
    } else {
      const why = TARGETS[platform][1] ?? `build it with scripts/build-static.sh ${TARGETS[platform][0]}`;
      console.error(`npm-build: not packed ${platform}: no ${binary} (${why})`);
    }
  }
} else {
  const binary = opts.binary ?? defaultBinary(opts.platform);
  if (!fs.existsSync(binary)) {
    const [triple, why] = TARGETS[opts.platform] ?? [];
    fail(`no binary ${binary}: ${why ?? `build it with scripts/build-static.sh ${triple}`}`);
  }
  packed.push(packPlatform(opts.platform, binary));
}

fs.rmSync(mainDir, { recursive: true, force: true });
fs.mkdirSync(mainDir, { recursive: true });
fs.cpSync(join(ROOT, "npm/ccmem"), mainDir, { recursive: true });
fs.copyFileSync(join(ROOT, "LICENSE"), join(mainDir, "LICENSE"));
packed.push(pack(mainDir));
for (const p of packed) console.log(p);
