// What every test file shares: the endpoints run.mjs started, the dev
// account's credentials, unique names, and a TokenCredential that signs
// access tokens with the key given to --oauthKeys.
import { createPrivateKey, randomUUID, sign } from "node:crypto";
import { readFileSync } from "node:fs";

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the suite with "npm test" (run.mjs starts Lazuli)`);
  return v;
}

export const account = "devstoreaccount1";
export const accountKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
export const connectionString = need("LAZULI_CONNECTION_STRING");
export const urls = {
  blob: need("LAZULI_BLOB_URL"), queue: need("LAZULI_QUEUE_URL"), table: need("LAZULI_TABLE_URL"), file: need("LAZULI_FILE_URL"),
};
// dataLakeUrl is the Blob endpoint of an instance whose account has a
// hierarchical namespace; the Data Lake SDK sends its dfs requests there.
export const dataLakeUrl = need("LAZULI_DATALAKE_BLOB_URL");
export const tlsUrls = {
  blob: need("LAZULI_TLS_BLOB_URL"), queue: need("LAZULI_TLS_QUEUE_URL"), table: need("LAZULI_TLS_TABLE_URL"), file: need("LAZULI_TLS_FILE_URL"),
};

// name is a fresh lower-case resource name with a readable prefix.
export function name(prefix) {
  return `${prefix}${randomUUID().replaceAll("-", "").slice(0, 12)}`;
}

export const tenantId = "a1b2c3d4-0000-4000-8000-000000000001";
export const objectId = "0f000000-0000-4000-8000-00000000000f";

const b64url = (x) => Buffer.from(typeof x === "string" ? x : JSON.stringify(x)).toString("base64url");

// mintToken signs claims as Entra ID would (RS256) with the suite's key;
// overrides replace or, when undefined, drop claims.
export function mintToken(overrides = {}, { alg = "RS256" } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: `https://sts.windows.net/${tenantId}/`, aud: "https://storage.azure.com",
    iat: now, nbf: now, exp: now + 3600, oid: objectId, tid: tenantId, ...overrides,
  };
  for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
  const input = `${b64url({ alg, typ: "JWT" })}.${b64url(claims)}`;
  if (alg === "none") return `${input}.`;
  const key = createPrivateKey(readFileSync(need("LAZULI_OAUTH_SIGNING_KEY")));
  return `${input}.${sign("sha256", Buffer.from(input), key).toString("base64url")}`;
}

// tokenCredential is the TokenCredential a user's code gets from
// @azure/identity, minting its tokens locally.
export const tokenCredential = {
  async getToken() {
    return { token: mintToken(), expiresOnTimestamp: Date.now() + 3600 * 1000 };
  },
};

// productionStyle turns a path-style endpoint (http://127.0.0.1:P/account)
// into the production-style one (http://account.<service>.localhost:P) that
// some SDK calls need, and makes *.localhost resolve to loopback in this
// process: neither glibc nor Node resolve it here.
let lookupPatched = false;
export async function productionStyle(endpoint, serviceName) {
  if (!lookupPatched) {
    const dns = (await import("node:dns")).default;
    const lookup = dns.lookup;
    dns.lookup = (host, opts, cb) => lookup(host.endsWith(".localhost") ? "127.0.0.1" : host, opts, cb);
    lookupPatched = true;
  }
  const u = new URL(endpoint);
  return `${u.protocol}//${account}.${serviceName}.localhost:${u.port}`;
}
