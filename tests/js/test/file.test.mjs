// Shares, directories and files with @azure/storage-file-share.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { ShareServiceClient, StorageSharedKeyCredential } from "@azure/storage-file-share";
import { account, accountKey, connectionString, name, productionStyle, urls } from "./env.mjs";

const service = ShareServiceClient.fromConnectionString(connectionString);

describe("file shares", () => {
  const share = service.getShareClient(name("share"));
  before(() => share.create({ quota: 5, metadata: { purpose: "tests" } }));
  after(() => share.delete({ deleteSnapshots: "include" }));

  test("share properties, metadata, listing and snapshots", async () => {
    const p = await share.getProperties();
    assert.equal(p.quota, 5);
    assert.deepEqual(p.metadata, { purpose: "tests" });
    await share.setQuota(6);
    assert.equal((await share.getProperties()).quota, 6);
    const snap = await share.createSnapshot();
    assert.ok(snap.snapshot);
    const listed = [];
    for await (const s of service.listShares({ prefix: share.name, includeSnapshots: true })) listed.push(s.snapshot ?? "base");
    assert.equal(listed.length, 2);
  });

  test("directories and files: create, upload, download, list, delete", async () => {
    const dir = share.getDirectoryClient("docs");
    await dir.create({ metadata: { level: "1" } });
    const sub = dir.getDirectoryClient("sub");
    await sub.create();
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const file = dir.getFileClient("big.bin");
    await file.uploadData(data, { rangeSize: 1024 * 1024, concurrency: 4 });
    const back = await file.downloadToBuffer(0, undefined, { rangeSize: 1024 * 1024, concurrency: 4 });
    assert.ok(back.equals(data));
    await sub.getFileClient("small.txt").uploadData(Buffer.from("small"), { fileHttpHeaders: { fileContentType: "text/plain" } });
    const props = await sub.getFileClient("small.txt").getProperties();
    assert.equal(props.contentType, "text/plain");
    assert.equal(props.contentLength, 5);
    const entries = [];
    for await (const e of dir.listFilesAndDirectories()) entries.push(`${e.kind}:${e.name}`);
    assert.deepEqual(entries.sort(), ["directory:sub", "file:big.bin"]);
    await assert.rejects(dir.delete(), (e) => e.statusCode === 409 && e.code === "DirectoryNotEmpty");
    await sub.getFileClient("small.txt").delete();
    await sub.delete();
    await file.delete();
    await dir.delete();
    assert.equal(await dir.exists(), false);
  });

  test("ranges: write, list, clear", async () => {
    const file = share.rootDirectoryClient.getFileClient("ranges.bin");
    await file.create(3 * 4096);
    await file.uploadRange(Buffer.alloc(512, 1), 0, 512);
    await file.uploadRange(Buffer.alloc(1024, 2), 8192, 1024);
    const ranges = await file.getRangeList();
    assert.deepEqual(ranges.rangeList.map((r) => [r.start, r.end]), [[0, 511], [8192, 9215]]);
    await file.clearRange(0, 512);
    assert.deepEqual((await file.getRangeList()).rangeList.map((r) => [r.start, r.end]), [[8192, 9215]]);
    const part = await file.downloadToBuffer(8192, 1024);
    assert.ok(part.equals(Buffer.alloc(1024, 2)));
    await file.resize(4096);
    assert.equal((await file.getProperties()).contentLength, 4096);
    const copy = share.rootDirectoryClient.getFileClient("ranges-copy.bin");
    await copy.create(4096);
    await copy.uploadRangeFromURL(await file.generateSasUrl({ permissions: { read: true, toString: () => "r" }, expiresOn: new Date(Date.now() + 3600_000) }), 0, 0, 512);
  });

  test("file leases", async () => {
    const file = share.rootDirectoryClient.getFileClient("leased.txt");
    await file.create(4);
    const lease = file.getShareLeaseClient();
    await lease.acquireLease();
    await assert.rejects(file.uploadRange("data", 0, 4), (e) => e.statusCode === 412 && e.code === "LeaseIdMissing");
    await file.uploadRange("data", 0, 4, { leaseAccessConditions: { leaseId: lease.leaseId } });
    await lease.breakLease();
    await file.uploadRange("more", 0, 4);
  });

  // The SDK's rename builds the destination URL as /<share>/<path>, which
  // only a production-style URL (account in the host name) keeps right.
  // As recorded against Azure (azure-sdk-assets, the Go SDK's
  // TestSharePutAndGetPermission, TestFileCreateWithPermissionKey and
  // TestDirSetPropertiesFilePermissionFormat): a permission reads back in
  // canonical SDDL with a NULL SACL; a create given a key gets a key of its
  // own (the parent's inheritable ACEs are added); Set Properties stores
  // the permission as given, so it gets Create Permission's key.
  test("file permissions: canonical SDDL, keys on create and set", async () => {
    const sddl = "O:S-1-5-32-548G:S-1-5-21-397955417-626881126-188441444-512D:(A;;RPWPCCDCLCSWRCWDWOGA;;;S-1-0-0)";
    const { filePermissionKey: key } = await share.createPermission(sddl);
    assert.equal((await share.getPermission(key)).permission,
      "O:AOG:S-1-5-21-397955417-626881126-188441444-512D:(A;;CCDCLCSWRPWPRCWDWOGA;;;S-1-0-0)S:NO_ACCESS_CONTROL");
    const dir = share.getDirectoryClient(name("perm"));
    const created = await dir.create({ filePermissionKey: key });
    assert.notEqual(created.filePermissionKey, key);
    const set = await dir.setProperties({ filePermission: sddl });
    assert.equal(set.filePermissionKey, key);
    await dir.delete();
  });

  test("rename files and directories", async () => {
    const hosted = new ShareServiceClient(await productionStyle(urls.file, "file"), new StorageSharedKeyCredential(account, accountKey));
    const dir = hosted.getShareClient(share.name).getDirectoryClient("from");
    await dir.create();
    const file = dir.getFileClient("a.txt");
    await file.uploadData(Buffer.from("moving"));
    const { destinationFileClient } = await file.rename("from/b.txt");
    assert.equal((await destinationFileClient.downloadToBuffer()).toString(), "moving");
    assert.equal(await file.exists(), false);
    const { destinationDirectoryClient } = await dir.rename("to");
    assert.equal((await destinationDirectoryClient.getFileClient("b.txt").downloadToBuffer()).toString(), "moving");
    const other = hosted.getShareClient(share.name).rootDirectoryClient.getFileClient("taken.txt");
    await other.uploadData(Buffer.from("x"));
    await assert.rejects(destinationDirectoryClient.getFileClient("b.txt").rename("taken.txt"), (e) => e.statusCode === 409);
    await destinationDirectoryClient.getFileClient("b.txt").rename("taken.txt", { replaceIfExists: true });
    assert.equal((await other.downloadToBuffer()).toString(), "moving");
  });
});
