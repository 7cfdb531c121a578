// Containers and blobs as a user's code drives them with @azure/storage-blob.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { BlobServiceClient } from "@azure/storage-blob";
import { connectionString, name } from "./env.mjs";

const service = BlobServiceClient.fromConnectionString(connectionString);

async function rejectsWith(promise, status, code) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.statusCode, status, `${err.statusCode} ${err.code}: ${err.message}`);
    if (code) assert.equal(err.code, code);
    return true;
  });
}

describe("containers", () => {
  test("create, properties, metadata, list and delete", async () => {
    const c = service.getContainerClient(name("ctr"));
    await c.create({ metadata: { owner: "js" } });
    await rejectsWith(c.create(), 409, "ContainerAlreadyExists");
    assert.equal((await c.createIfNotExists()).succeeded, false);
    const props = await c.getProperties();
    assert.deepEqual(props.metadata, { owner: "js" });
    await c.setMetadata({ stage: "two" });
    assert.deepEqual((await c.getProperties()).metadata, { stage: "two" });
    const names = [];
    for await (const item of service.listContainers({ prefix: c.containerName, includeMetadata: true })) names.push(item);
    assert.equal(names.length, 1);
    assert.deepEqual(names[0].metadata, { stage: "two" });
    await c.delete();
    assert.equal(await c.exists(), false);
  });

  test("listing pages through many containers", async () => {
    const prefix = name("page");
    await Promise.all([0, 1, 2, 3, 4].map((i) => service.getContainerClient(`${prefix}-${i}`).create()));
    const pages = [];
    for await (const page of service.listContainers({ prefix }).byPage({ maxPageSize: 2 })) {
      pages.push(page.containerItems.map((c) => c.name));
    }
    assert.deepEqual(pages.map((p) => p.length), [2, 2, 1]);
    assert.equal(new Set(pages.flat()).size, 5);
  });
});

describe("blobs", () => {
  const container = service.getContainerClient(name("blobs"));
  before(() => container.create());
  after(() => container.delete());

  test("parallel upload and download of a multi-block blob", async () => {
    const data = randomBytes(5 * 1024 * 1024 + 123);
    const blob = container.getBlockBlobClient("big.bin");
    await blob.uploadData(data, { blockSize: 512 * 1024, concurrency: 4, maxSingleShotSize: 256 * 1024 });
    const blocks = await blob.getBlockList("committed");
    assert.equal(blocks.committedBlocks.length, 11);
    const back = await blob.downloadToBuffer(0, undefined, { blockSize: 1024 * 1024, concurrency: 4 });
    assert.ok(back.equals(data));
    const range = await blob.downloadToBuffer(1000, 5000);
    assert.ok(range.equals(data.subarray(1000, 6000)));
  });

  test("stream upload, properties and metadata", async () => {
    const blob = container.getBlockBlobClient("dir/props.txt");
    await blob.upload("hello", 5, { blobHTTPHeaders: { blobContentType: "text/plain", blobCacheControl: "no-cache" }, metadata: { a: "1" } });
    const p = await blob.getProperties();
    assert.equal(p.contentType, "text/plain");
    assert.equal(p.cacheControl, "no-cache");
    assert.equal(p.contentLength, 5);
    assert.deepEqual(p.metadata, { a: "1" });
    await blob.setMetadata({ b: "2" });
    await blob.setHTTPHeaders({ blobContentType: "application/json" });
    const q = await blob.getProperties();
    assert.deepEqual(q.metadata, { b: "2" });
    assert.equal(q.contentType, "application/json");
    const text = (await blob.downloadToBuffer()).toString();
    assert.equal(text, "hello");
  });

  test("flat and hierarchical listing", async () => {
    const c = service.getContainerClient(name("list"));
    await c.create();
    for (const n of ["a.txt", "d1/b.txt", "d1/c.txt", "d1/sub/d.txt", "d2/e.txt"]) {
      await c.getBlockBlobClient(n).upload(n, n.length, { metadata: { n: n.replaceAll("/", "_").replace(".", "_") } });
    }
    const flat = [];
    for await (const b of c.listBlobsFlat({ includeMetadata: true })) flat.push(b.name);
    assert.deepEqual(flat, ["a.txt", "d1/b.txt", "d1/c.txt", "d1/sub/d.txt", "d2/e.txt"]);
    const top = [];
    for await (const item of c.listBlobsByHierarchy("/")) top.push(item.kind === "prefix" ? `prefix:${item.name}` : item.name);
    // The SDK yields each page's prefixes before its blobs.
    assert.deepEqual(top, ["prefix:d1/", "prefix:d2/", "a.txt"]);
    const inD1 = [];
    for await (const item of c.listBlobsByHierarchy("/", { prefix: "d1/" })) inD1.push(item.name);
    assert.deepEqual(inD1, ["d1/sub/", "d1/b.txt", "d1/c.txt"]);
    const pages = [];
    for await (const page of c.listBlobsFlat().byPage({ maxPageSize: 2 })) pages.push(page.segment.blobItems.length);
    assert.deepEqual(pages, [2, 2, 1]);
    await c.delete();
  });

  test("conditional writes", async () => {
    const blob = container.getBlockBlobClient("cond.txt");
    const first = await blob.upload("one", 3);
    await rejectsWith(blob.upload("two", 3, { conditions: { ifNoneMatch: "*" } }), 409, "BlobAlreadyExists");
    await rejectsWith(blob.upload("two", 3, { conditions: { ifMatch: '"0x1234"' } }), 412, "ConditionNotMet");
    const second = await blob.upload("two", 3, { conditions: { ifMatch: first.etag } });
    assert.notEqual(second.etag, first.etag);
    await rejectsWith(blob.setMetadata({ x: "y" }, { conditions: { ifMatch: first.etag } }), 412, "ConditionNotMet");
    await rejectsWith(blob.download(0, undefined, { conditions: { ifNoneMatch: second.etag } }), 304);
    const future = new Date(Date.now() + 3600_000);
    await rejectsWith(blob.setMetadata({ x: "y" }, { conditions: { ifModifiedSince: future } }), 412, "ConditionNotMet");
  });

  test("blob and container leases", async () => {
    const blob = container.getBlockBlobClient("leased.txt");
    await blob.upload("v1", 2);
    const lease = blob.getBlobLeaseClient();
    await lease.acquireLease(15);
    await rejectsWith(blob.upload("v2", 2), 412, "LeaseIdMissing");
    await blob.upload("v2", 2, { conditions: { leaseId: lease.leaseId } });
    await lease.renewLease();
    const other = blob.getBlobLeaseClient();
    await rejectsWith(other.acquireLease(15), 409, "LeaseAlreadyPresent");
    await lease.changeLease(other.leaseId);
    await other.releaseLease();
    await blob.upload("v3", 2);
    const c = service.getContainerClient(name("lease"));
    await c.create();
    const cl = c.getBlobLeaseClient();
    await cl.acquireLease(-1);
    await rejectsWith(c.delete(), 412, "LeaseIdMissing");
    await cl.breakLease(0);
    await c.delete();
  });

  test("snapshots", async () => {
    const blob = container.getBlockBlobClient("snap.txt");
    await blob.upload("first", 5);
    const snap = await blob.createSnapshot({ metadata: { s: "1" } });
    await blob.upload("second", 6);
    const old = blob.withSnapshot(snap.snapshot);
    assert.equal((await old.downloadToBuffer()).toString(), "first");
    assert.equal((await blob.downloadToBuffer()).toString(), "second");
    const seen = [];
    for await (const b of container.listBlobsFlat({ includeSnapshots: true, prefix: "snap" })) seen.push(b.snapshot ?? "base");
    assert.equal(seen.length, 2);
    await rejectsWith(blob.delete(), 409, "SnapshotsPresent");
    await blob.delete({ deleteSnapshots: "include" });
    assert.equal(await old.exists(), false);
  });

  test("copy within the account, synchronous and asynchronous", async () => {
    const src = container.getBlockBlobClient("copy-src.txt");
    await src.upload("copy me", 7, { metadata: { from: "src" } });
    const asyncDest = container.getBlockBlobClient("copy-async.txt");
    const poller = await asyncDest.beginCopyFromURL(src.url);
    const result = await poller.pollUntilDone();
    assert.equal(result.copyStatus, "success");
    assert.equal((await asyncDest.downloadToBuffer()).toString(), "copy me");
    assert.deepEqual((await asyncDest.getProperties()).metadata, { from: "src" });
    const sasUrl = await src.generateSasUrl({ permissions: "r", expiresOn: new Date(Date.now() + 3600_000) });
    const syncDest = container.getBlockBlobClient("copy-sync.txt");
    const sync = await syncDest.syncCopyFromURL(sasUrl);
    assert.equal(sync.copyStatus, "success");
    const put = container.getBlockBlobClient("copy-put.txt");
    await put.syncUploadFromURL(sasUrl);
    assert.equal((await put.downloadToBuffer()).toString(), "copy me");
    const staged = container.getBlockBlobClient("copy-blocks.txt");
    await staged.stageBlockFromURL(Buffer.from("b1").toString("base64"), sasUrl, 0, 4);
    await staged.stageBlockFromURL(Buffer.from("b2").toString("base64"), sasUrl, 4, 3);
    await staged.commitBlockList([Buffer.from("b2").toString("base64"), Buffer.from("b1").toString("base64")]);
    assert.equal((await staged.downloadToBuffer()).toString(), " mecopy");
  });

  test("tags and find by tags", async () => {
    const c = service.getContainerClient(name("tags"));
    await c.create();
    const a = c.getBlockBlobClient("a");
    const b = c.getBlockBlobClient("b");
    await a.upload("a", 1, { tags: { project: "lazuli", tier: "gold" } });
    await b.upload("b", 1);
    await b.setTags({ project: "lazuli", tier: "silver" });
    assert.deepEqual((await b.getTags()).tags, { project: "lazuli", tier: "silver" });
    const found = [];
    for await (const f of c.findBlobsByTags("project = 'lazuli' AND tier = 'gold'")) found.push(f.name);
    assert.deepEqual(found, ["a"]);
    const byService = [];
    for await (const f of service.findBlobsByTags(`@container = '${c.containerName}' AND project = 'lazuli'`)) byService.push(f.name);
    assert.deepEqual(byService.sort(), ["a", "b"]);
    await rejectsWith(a.setMetadata({ x: "1" }, { conditions: { tagConditions: "tier = 'silver'" } }), 412, "ConditionNotMet");
    await c.delete();
  });

  // The service's answers to malformed Find Blobs by Tags queries, as the
  // JavaScript client reports them (Azurite's tests/blob/apis/
  // service.test.ts and container.test.ts read the same fields).
  test("find blobs by tags refuses malformed queries with the service's message", async () => {
    const c = service.getContainerClient(name("findq"));
    await c.create();
    const at = "Error parsing query at or near character position";
    const cases = [
      [service, "key1='v' and @container11='1'", "unsupported parameter"],
      [service, "'key 1'='v'", ""],
      [service, "key1='valffffff @'", "not permitted in tag name or value"],
      [service, `key${"1".repeat(130)}='v'`, "tag must be between 1 and 128 characters in length"],
      [service, `key_1='${"v".repeat(257)}'`, "tag value must be between 0 and 256 characters in length"],
      [c, "astring", ""],
      [c, "key1<>'ab'", ""],
      [c, "key1='ab' or key2='cd'", ""],
    ];
    for (const [client, query, words] of cases) {
      await assert.rejects(client.findBlobsByTags(query).byPage().next(), (err) => {
        assert.equal(err.statusCode, 400, query);
        assert.equal(err.details.errorCode, "InvalidQueryParameterValue", query);
        assert.ok(err.details.message.startsWith(at) && err.details.message.includes(words), `${query}: ${err.details.message}`);
        return true;
      });
    }
    const eleven = Array.from({ length: 11 }, (_, i) => `k${i}='v'`).join(" and ");
    await assert.rejects(service.findBlobsByTags(eleven).byPage().next(), (err) => {
      assert.ok(err.details.message.startsWith("Error parsing query: there can be at most 10 unique tags in a query"), err.details.message);
      return true;
    });
    await c.delete();
  });

  test("deleting a blob of staged blocks deletes the blocks", async () => {
    const blob = container.getBlockBlobClient(name("staged"));
    const id = Buffer.from("block-1").toString("base64");
    await blob.stageBlock(id, "abc", 3);
    await blob.delete();
    await rejectsWith(blob.getBlockList("uncommitted"), 404, "BlobNotFound");
  });

  test("append blobs", async () => {
    const blob = container.getAppendBlobClient("log.txt");
    await blob.create();
    for (const line of ["one\n", "two\n", "three\n"]) await blob.appendBlock(line, line.length);
    const p = await blob.getProperties();
    assert.equal(p.blobCommittedBlockCount, 3);
    assert.equal((await blob.downloadToBuffer()).toString(), "one\ntwo\nthree\n");
    await rejectsWith(blob.appendBlock("x", 1, { conditions: { appendPosition: 3 } }), 412, "AppendPositionConditionNotMet");
    await blob.seal();
    await rejectsWith(blob.appendBlock("x", 1), 409, "BlobIsSealed");
  });

  test("page blobs", async () => {
    const blob = container.getPageBlobClient("disk.vhd");
    await blob.create(4 * 512);
    const page = Buffer.alloc(512, 7);
    await blob.uploadPages(page, 512, 512);
    await blob.uploadPages(page, 1536, 512);
    const ranges = await blob.getPageRanges();
    assert.deepEqual(ranges.pageRange.map((r) => [r.offset, r.count]), [[512, 511], [1536, 511]]);
    await blob.clearPages(512, 512);
    const after = await blob.getPageRanges();
    assert.deepEqual(after.pageRange.map((r) => [r.offset, r.count]), [[1536, 511]]);
    await blob.resize(8 * 512);
    assert.equal((await blob.getProperties()).contentLength, 4096);
    const data = await blob.downloadToBuffer(1536, 512);
    assert.ok(data.equals(page));
    await rejectsWith(blob.uploadPages(page, 100, 512), 416, "InvalidPageRange");
  });
});
