// The client's own platform rules, called from each build's bundle (linux, darwin, win32) INSIDE
// the Linux `claude` binary (its embedded Bun runs any build's chunks; the platform is fixed in
// each build's code). gen_platform_vectors.py extracts the bundles, finds the functions and runs
// this preload:
//
//   BUN_OPTIONS="--preload $PWD/fuzz/oracle/platform_oracle.js" PO_SPEC=spec.json \
//     PO_IN=inputs.json PO_OUT=out.json claude --version
//
// spec.json: {"builds": {BUILD: {"dir": extracted chunks, "chunks": {FAMILY: chunk}, "env"?}}}.
// gen_platform_vectors.py has appended to each chunk (in its cache, never committed: it is the
// client's code) an export of the function as `__po_FAMILY` and, for the families that need it,
// a few lines of glue built from the client's own caller; every call below is the client's
// function on the input. Exits before the client starts.
//
// One build per process: the client's session state (working folder, home, config folder,
// platform caches) is set by the first build that asks and shared by every build loaded after
// it, so a second build would compute with the first one's.
const spec = JSON.parse(await Bun.file(process.env.PO_SPEC).text());
if (Object.keys(spec.builds).length !== 1) throw new Error("oracle: one build per process");
const inputs = JSON.parse(await Bun.file(process.env.PO_IN).text());

async function load(b) {
  const out = {};
  for (const [family, chunk] of Object.entries(b.chunks)) {
    out[family] = (await import(`${b.dir}/${chunk}`))[`__po_${family}`];
    if (typeof out[family] !== "function") throw new Error(`oracle: no ${family} in ${chunk}`);
  }
  return out;
}

const pathOf = (build) => (build === "win32" ? require("path").win32 : require("path").posix);
const safe = (f) => {
  try {
    return f();
  } catch (e) {
    return { $error: String(e?.message ?? e) };
  }
};

// The Read-deny family runs alone (PO_DENY=1): the permission matcher reads the session's
// working folder and home (`process.cwd()`, `os.homedir()`, read when the chunks first ask),
// so the build gets its platform's before its chunks load, in a process the other families
// (which resolve against `/` and HOME) do not share.
// Its context is the client's tool-permission context with only deny rules, from one source.
const denyRun = process.env.PO_DENY === "1";
const denyContext = (rule, source) => ({
  mode: "default",
  additionalWorkingDirectories: new Map(),
  alwaysAllowRules: {},
  alwaysAskRules: {},
  alwaysDenyRules: { [source]: [rule] },
  isBypassPermissionsModeAvailable: false,
});

const results = {};
for (const [build, b] of Object.entries(spec.builds)) {
  if (b.env) for (const [k, v] of Object.entries(b.env)) process.env[k] = v;
  if (denyRun) {
    const at = build === "win32" ? inputs.denyAt.windows : inputs.denyAt.posix;
    process.cwd = () => at.cwd;
    require("os").homedir = () => at.home;
    const f = await load(b);
    results[build] = {
      deny: inputs.deny.map(([rule, source, path]) => safe(() => f.deny([path], denyContext(rule, source)))),
    };
    continue;
  }
  const f = await load(b);
  const p = pathOf(build);
  const r = (results[build] = {});
  r.managed = f.managed();
  r.slug = inputs.slug.map((x) => f.slug(x));
  r.dedup = inputs.paths.map((x) => safe(() => f.dedup(x)));
  r.refused = inputs.paths.map((x) => !!f.refused(x));
  r.approval = inputs.paths.map((x) => safe(() => f.approval(x)));
  r.inside = inputs.inside.map(([t, d]) => safe(() => f.inside(t, d)));
  r.path = inputs.paths.map((x) => ({
    normalize: p.normalize(x),
    dirname: p.dirname(x),
    root: p.parse(x).root,
    absolute: p.isAbsolute(x),
  }));
  r.join = inputs.join.map((parts) => p.join(...parts));
  r.memdir = inputs.memdir.map(([v, tilde]) => safe(() => f.memdir(v, tilde) ?? null));
  const importer = build === "win32" ? inputs.importer.windows : inputs.importer.posix;
  r.includes = inputs.includes.map((text) => safe(() => f.includes(text, importer, "Project")));
  r.excludes = inputs.excludes.map(([patterns, path]) => safe(() => f.excludes(patterns, path)));
  r.rulematch = inputs.rulematch.map(([globs, base, file]) => safe(() => f.rulematch(base, file, globs)));
}
await Bun.write(process.env.PO_OUT, JSON.stringify(results));
process.exit(0);
