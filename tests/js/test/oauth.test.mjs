// OAuth: the four services over HTTPS with a TokenCredential whose tokens
// are signed with the key Lazuli was given through --oauthKeys, and the
// service's answer to tokens it must refuse.
import assert from "node:assert/strict";
import http from "node:http";
import { describe, test } from "node:test";
import { DefaultAzureCredential } from "@azure/identity";
import { BlobServiceClient, BlockBlobClient, StorageSharedKeyCredential, generateBlobSASQueryParameters } from "@azure/storage-blob";
import { QueueServiceClient } from "@azure/storage-queue";
import { TableClient } from "@azure/data-tables";
import {
  FileSASPermissions, ShareFileClient, ShareServiceClient, StorageSharedKeyCredential as FileSharedKeyCredential, generateFileSASQueryParameters,
} from "@azure/storage-file-share";
import { account, accountKey, mintToken, name, tlsUrls, tokenCredential, urls } from "./env.mjs";

const credentialOf = (token) => ({ getToken: async () => ({ token, expiresOnTimestamp: Date.now() + 3600_000 }) });

async function rawStatus(url, token) {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${token}`, "x-ms-version": "2025-05-05" } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("OAuth bearer tokens", () => {
  test("blob", async () => {
    const service = new BlobServiceClient(tlsUrls.blob, tokenCredential);
    const c = service.getContainerClient(name("oauth"));
    await c.create();
    await c.getBlockBlobClient("a.txt").upload("token", 5);
    assert.equal((await c.getBlockBlobClient("a.txt").downloadToBuffer()).toString(), "token");
    const props = await service.getProperties();
    assert.ok(props);
    await c.delete();
  });

  test("blob batch with a token credential", async () => {
    const service = new BlobServiceClient(tlsUrls.blob, tokenCredential);
    const c = service.getContainerClient(name("oauthbatch"));
    await c.create();
    const blobs = ["a", "b", "c"].map((n) => c.getBlockBlobClient(n));
    for (const b of blobs) await b.upload("x", 1);
    const res = await c.getBlobBatchClient().deleteBlobs(blobs);
    assert.equal(res.subResponsesSucceededCount, 3, JSON.stringify(res.subResponses.map((r) => [r.status, r.errorCode])));
    await c.delete();
  });

  test("queue", async () => {
    const q = new QueueServiceClient(tlsUrls.queue, tokenCredential).getQueueClient(name("oauth"));
    await q.create();
    await q.sendMessage("hi");
    assert.equal((await q.receiveMessages()).receivedMessageItems[0].messageText, "hi");
    await q.delete();
  });

  test("table", async () => {
    const t = new TableClient(tlsUrls.table, name("oauth").replace(/[^a-z0-9]/g, ""), tokenCredential);
    await t.createTable();
    await t.createEntity({ partitionKey: "p", rowKey: "r", v: "token" });
    assert.equal((await t.getEntity("p", "r")).v, "token");
    await t.deleteTable();
  });

  test("file", async () => {
    const share = new ShareServiceClient(tlsUrls.file, tokenCredential, { fileRequestIntent: "backup" }).getShareClient(name("oauth"));
    await share.create();
    const file = share.rootDirectoryClient.getFileClient("f.txt");
    await file.uploadData(Buffer.from("token"));
    assert.equal((await file.downloadToBuffer()).toString(), "token");
    await share.delete();
  });

  test("an audience naming the account's service URL", async () => {
    const token = mintToken({ aud: `https://${account}.blob.core.windows.net` });
    const service = new BlobServiceClient(tlsUrls.blob, credentialOf(token));
    await service.getProperties();
  });

  for (const [what, token, detail] of [
    ["a tampered token", () => { const [h, , s] = mintToken().split("."); return `${h}.${Buffer.from(JSON.stringify({ iss: "https://sts.windows.net/x/", aud: "https://storage.azure.com", iat: 1, nbf: 1, exp: 4e9, oid: "evil", tid: "x" })).toString("base64url")}.${s}`; }, "signature does not verify"],
    ["an unsigned token", () => mintToken({}, { alg: "none" }), "is not accepted"],
    ["an expired token", () => mintToken({ iat: 1, nbf: 1, exp: Math.floor(Date.now() / 1000) - 3600 }), "The token is expired"],
    ["a token for another resource", () => mintToken({ aud: "https://vault.azure.net" }), "Audience validation failed"],
    ["a token from another issuer", () => mintToken({ iss: "https://accounts.example.com/" }), "Issuer validation failed"],
  ]) {
    test(`refuses ${what}`, async () => {
      const res = await rawStatus(`${tlsUrls.blob}?comp=list`, token());
      assert.equal(res.status, 401);
      assert.equal(res.headers.get("x-ms-error-code"), "InvalidAuthenticationInfo");
      assert.match(res.headers.get("www-authenticate"),
        /^Bearer authorization_uri=https:\/\/login\.microsoftonline\.com\/[^/]+\/oauth2\/authorize resource_id=https:\/\/storage\.azure\.com$/);
      assert.ok(res.text.includes(detail), res.text);
      const sdk = new BlobServiceClient(tlsUrls.blob, credentialOf(token()));
      await assert.rejects(sdk.getProperties(), (err) => err.statusCode === 401 && err.code === "InvalidAuthenticationInfo");
    });
  }

  test("Bearer over plain HTTP is refused", async () => {
    const res = await fetch(`${urls.blob}?comp=list`, { headers: { Authorization: `Bearer ${mintToken()}`, "x-ms-version": "2025-05-05" } });
    await res.arrayBuffer();
    // This instance runs without --oauth: Bearer is not an accepted scheme.
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("x-ms-error-code"), "InvalidAuthenticationInfo");
  });

  test("a user delegation key needs a token", async () => {
    const sk = new BlobServiceClient(tlsUrls.blob, new StorageSharedKeyCredential(account, accountKey));
    await assert.rejects(sk.getUserDelegationKey(new Date(), new Date(Date.now() + 3600_000)), (err) => err.statusCode === 403 && err.code === "AuthenticationFailed");
    const oauth = new BlobServiceClient(tlsUrls.blob, tokenCredential);
    await assert.rejects(oauth.getUserDelegationKey(new Date(), new Date(Date.now() + 8 * 24 * 3600_000)), (err) => err.statusCode === 400);
  });

  // A destination authorized by a SAS reads a private source of the same
  // account only with x-ms-copy-source-authorization.
  test("copy sources authorized with a token", async () => {
    const sharedKey = new StorageSharedKeyCredential(account, accountKey);
    const blobs = new BlobServiceClient(tlsUrls.blob, tokenCredential);
    const c = blobs.getContainerClient(name("copytok"));
    await c.create();
    const src = c.getBlockBlobClient("src.txt");
    await src.upload("token copy", 10);
    const destSas = generateBlobSASQueryParameters({ containerName: c.containerName, blobName: "dest.txt", permissions: "cw", expiresOn: new Date(Date.now() + 3600_000) }, sharedKey).toString();
    const dest = new BlockBlobClient(`${c.url}/dest.txt?${destSas}`);
    await assert.rejects(dest.syncUploadFromURL(src.url), (err) => err.statusCode === 403 && err.code === "CannotVerifyCopySource");
    const sourceAuthorization = { scheme: "Bearer", value: mintToken() };
    await dest.syncUploadFromURL(src.url, { sourceAuthorization });
    await dest.syncCopyFromURL(src.url, { sourceAuthorization });
    await dest.stageBlockFromURL(Buffer.from("b1").toString("base64"), src.url, 0, 5, { sourceAuthorization });
    assert.equal((await c.getBlockBlobClient("dest.txt").downloadToBuffer()).toString(), "token copy");
    await c.delete();

    const shares = new ShareServiceClient(tlsUrls.file, tokenCredential, { fileRequestIntent: "backup" });
    const share = shares.getShareClient(name("copytok"));
    await share.create();
    const from = share.rootDirectoryClient.getFileClient("from.txt");
    await from.uploadData(Buffer.from("file range"));
    await share.rootDirectoryClient.getFileClient("to.txt").create(10);
    const toSas = generateFileSASQueryParameters({ shareName: share.name, filePath: "to.txt", permissions: FileSASPermissions.parse("rw"), expiresOn: new Date(Date.now() + 3600_000) },
      new FileSharedKeyCredential(account, accountKey)).toString();
    const to = new ShareFileClient(`${share.url}/to.txt?${toSas}`);
    await assert.rejects(to.uploadRangeFromURL(from.url, 0, 0, 10), (err) => err.statusCode === 403 && err.code === "CannotVerifyCopySource");
    await to.uploadRangeFromURL(from.url, 0, 0, 10, { sourceAuthorization });
    assert.equal((await to.downloadToBuffer()).toString(), "file range");
    await share.delete();
  });

  // Code written with DefaultAzureCredential, run where a managed identity
  // endpoint answers (App Service's IDENTITY_ENDPOINT), here one that mints
  // the suite's tokens.
  test("DefaultAzureCredential through a managed identity endpoint", async () => {
    const asked = [];
    const endpoint = http.createServer((req, res) => {
      const u = new URL(req.url, "http://127.0.0.1");
      asked.push({ resource: u.searchParams.get("resource"), header: req.headers["x-identity-header"] });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ access_token: mintToken(), token_type: "Bearer", resource: u.searchParams.get("resource"),
        expires_on: String(Math.floor(Date.now() / 1000) + 3600) }));
    });
    await new Promise((r) => endpoint.listen(0, "127.0.0.1", r));
    const saved = { endpoint: process.env.IDENTITY_ENDPOINT, header: process.env.IDENTITY_HEADER };
    process.env.IDENTITY_ENDPOINT = `http://127.0.0.1:${endpoint.address().port}/msi/token`;
    process.env.IDENTITY_HEADER = "lazuli-test";
    try {
      const credential = new DefaultAzureCredential();
      const c = new BlobServiceClient(tlsUrls.blob, credential).getContainerClient(name("dac"));
      await c.create();
      await c.getBlockBlobClient("x").upload("x", 1);
      await c.delete();
      const q = new QueueServiceClient(tlsUrls.queue, credential).getQueueClient(name("dac"));
      await q.create();
      await q.delete();
      assert.ok(asked.length >= 1);
      assert.deepEqual(asked[0], { resource: "https://storage.azure.com", header: "lazuli-test" });
    } finally {
      process.env.IDENTITY_ENDPOINT = saved.endpoint ?? "";
      process.env.IDENTITY_HEADER = saved.header ?? "";
      if (saved.endpoint === undefined) delete process.env.IDENTITY_ENDPOINT;
      if (saved.header === undefined) delete process.env.IDENTITY_HEADER;
      endpoint.close();
    }
  });
});
