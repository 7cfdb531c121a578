// BlobBatchClient at container and service scope: the JavaScript SDK writes
// its batch bodies differently from the other SDKs (no blank line after a
// sub-request's headers) and, on a path-style service URL, posts to
// /<account>?restype=container&comp=batch.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { BlobServiceClient } from "@azure/storage-blob";
import { connectionString, name } from "./env.mjs";

const service = BlobServiceClient.fromConnectionString(connectionString);

describe("blob batch", () => {
  const container = service.getContainerClient(name("batch"));
  before(() => container.create());
  after(() => container.delete());

  async function upload(names) {
    return Promise.all(names.map(async (n) => {
      const b = container.getBlockBlobClient(n);
      await b.upload(n, n.length);
      return b;
    }));
  }

  test("container scope: delete and set tier", async () => {
    const blobs = await upload(["c1", "c2", "c3"]);
    const batch = container.getBlobBatchClient();
    const tiers = await batch.setBlobsAccessTier(blobs.map((b) => b.url), service.credential, "Cool");
    assert.equal(tiers.subResponsesSucceededCount, 3, JSON.stringify(tiers.subResponses.map((r) => r.status)));
    assert.equal((await blobs[0].getProperties()).accessTier, "Cool");
    const res = await batch.deleteBlobs(blobs.map((b) => b.url), service.credential);
    assert.equal(res.subResponsesSucceededCount, 3);
    assert.equal(res.subResponses.every((r) => r.status === 202), true);
    for (const b of blobs) assert.equal(await b.exists(), false);
  });

  test("service scope from a path-style URL", async () => {
    const blobs = await upload(["s1", "s2"]);
    const batch = service.getBlobBatchClient();
    const res = await batch.deleteBlobs(blobs, { deleteSnapshots: "include" });
    assert.equal(res.subResponsesSucceededCount, 2, JSON.stringify(res.subResponses.map((r) => [r.status, r.errorCode])));
    for (const b of blobs) assert.equal(await b.exists(), false);
  });

  test("a missing blob fails alone", async () => {
    const [present] = await upload(["p1"]);
    const missing = container.getBlockBlobClient("never-uploaded");
    const res = await container.getBlobBatchClient().deleteBlobs([present, missing]);
    assert.equal(res.subResponsesSucceededCount, 1, JSON.stringify(res.subResponses.map((r) => [r.status, r.errorCode, r.statusMessage])));
    assert.equal(res.subResponsesFailedCount, 1);
    assert.equal(res.subResponses[1].status, 404);
    assert.equal(res.subResponses[1].errorCode, "BlobNotFound");
  });
});
