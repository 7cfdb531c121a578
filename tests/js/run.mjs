// Runs the JavaScript SDK suite against Lazuli: builds the binary (or takes
// LAZULI_BIN), starts one plain-HTTP instance on sqlite, as most users run
// it, one whose account has a hierarchical namespace for the Data Lake
// tests, and one HTTPS instance with --oauth basic and --oauthKeys for the
// OAuth tests, then runs node's test runner over test/*.test.mjs with the
// endpoints in the environment, and stops the instances.
import { spawn, execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");
const work = mkdtempSync(join(tmpdir(), "lazuli-js-"));

function build() {
  if (process.env.LAZULI_BIN) return process.env.LAZULI_BIN;
  const bin = join(work, "lazuli");
  execFileSync("go", ["build", "-o", bin, "./cmd/lazuli"], { cwd: repo, stdio: "inherit" });
  return bin;
}

// start runs the binary and resolves with the endpoints it prints once
// ready ("  Blob service is successfully listening at URL", then the
// connection string).
function start(bin, args) {
  const child = spawn(bin, ["--blobPort", "0", "--queuePort", "0", "--tablePort", "0", "--filePort", "0", "--smbPort", "0", "--adminPort", "0", "--silent", ...args],
    { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolveReady, reject) => {
    let out = "";
    const endpoints = { child };
    child.on("exit", (code) => reject(new Error(`lazuli exited with ${code} before it was ready:\n${out}`)));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const lines = out.split("\n");
      for (const line of lines) {
        const m = /^\s+(Blob|Queue|Table|File) service is successfully listening at (\S+)/.exec(line);
        if (m) endpoints[m[1].toLowerCase()] = m[2];
      }
      const i = lines.findIndex((l) => l.startsWith("Connection string:"));
      if (i >= 0 && lines.length > i + 2) {
        endpoints.connectionString = lines[i + 1].trim();
        resolveReady(endpoints);
      }
    });
  });
}

const bin = build();
execFileSync("go", ["run", "./tests/js/testcert", work], { cwd: repo, stdio: "inherit" });
const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
writeFileSync(join(work, "oauth-keys.pem"), publicKey.export({ type: "spki", format: "pem" }));
writeFileSync(join(work, "oauth-signing.pem"), privateKey.export({ type: "pkcs8", format: "pem" }));

const plain = await start(bin, ["--location", join(work, "data")]);
const dataLake = await start(bin, ["--location", join(work, "datalake"), "--hnsAccounts", "devstoreaccount1"]);
const secure = await start(bin, ["--inMemoryPersistence", "--cert", join(work, "cert.pem"), "--key", join(work, "key.pem"),
  "--oauth", "basic", "--oauthKeys", join(work, "oauth-keys.pem")]);

const env = {
  ...process.env,
  LAZULI_CONNECTION_STRING: plain.connectionString,
  LAZULI_BLOB_URL: plain.blob, LAZULI_QUEUE_URL: plain.queue, LAZULI_TABLE_URL: plain.table, LAZULI_FILE_URL: plain.file,
  LAZULI_TLS_BLOB_URL: secure.blob, LAZULI_TLS_QUEUE_URL: secure.queue, LAZULI_TLS_TABLE_URL: secure.table, LAZULI_TLS_FILE_URL: secure.file,
  LAZULI_DATALAKE_BLOB_URL: dataLake.blob,
  LAZULI_OAUTH_SIGNING_KEY: join(work, "oauth-signing.pem"),
  NODE_EXTRA_CA_CERTS: join(work, "cert.pem"),
};
const files = process.argv.slice(2).length > 0 ? process.argv.slice(2)
  : readdirSync(join(here, "test")).filter((f) => f.endsWith(".test.mjs")).sort().map((f) => join(here, "test", f));
// One file at a time: the machine's CPU is shared, and the files' names
// never collide anyway. (Node before 20.10 has no such flag.)
const [major, minor] = process.versions.node.split(".").map(Number);
const serial = major > 20 || (major === 20 && minor >= 10) ? ["--test-concurrency=1"] : [];
const runner = spawn(process.execPath, ["--test", ...serial, ...files], { stdio: "inherit", env });
const code = await new Promise((r) => runner.on("exit", (c) => r(c ?? 1)));
const instances = [plain, dataLake, secure];
for (const s of instances) {
  s.child.removeAllListeners("exit");
  s.child.kill("SIGTERM");
}
await Promise.all(instances.map((s) => new Promise((r) => (s.child.exitCode !== null ? r() : s.child.on("exit", r)))));
rmSync(work, { recursive: true, force: true });
process.exit(code);
