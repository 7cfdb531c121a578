// Account-level workflows: service properties of each service, account
// information, public containers read anonymously, access tiers, soft
// delete and undelete.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BlobServiceClient, ContainerClient, StorageSharedKeyCredential } from "@azure/storage-blob";
import { QueueServiceClient, StorageSharedKeyCredential as QueueKeyCredential } from "@azure/storage-queue";
import { AzureNamedKeyCredential, TableServiceClient } from "@azure/data-tables";
import { ShareServiceClient } from "@azure/storage-file-share";
import { account, accountKey, connectionString, name, urls } from "./env.mjs";

const blobs = BlobServiceClient.fromConnectionString(connectionString);

describe("account", () => {
  test("blob service properties: CORS and soft delete", async () => {
    const before = await blobs.getProperties();
    const cors = [{ allowedOrigins: "https://app.example", allowedMethods: "GET,PUT", allowedHeaders: "x-ms-meta-*", exposedHeaders: "x-ms-request-id", maxAgeInSeconds: 60 }];
    await blobs.setProperties({ cors, deleteRetentionPolicy: { enabled: true, days: 2 } });
    const after = await blobs.getProperties();
    assert.equal(after.cors.length, 1);
    assert.equal(after.cors[0].allowedOrigins, "https://app.example");
    assert.equal(after.deleteRetentionPolicy.enabled, true);
    assert.equal(after.deleteRetentionPolicy.days, 2);

    const c = blobs.getContainerClient(name("soft"));
    await c.create();
    const b = c.getBlockBlobClient("gone.txt");
    await b.upload("back", 4);
    await b.delete();
    assert.equal(await b.exists(), false);
    const deleted = [];
    for await (const item of c.listBlobsFlat({ includeDeleted: true })) deleted.push([item.name, item.deleted]);
    assert.deepEqual(deleted, [["gone.txt", true]]);
    await b.undelete();
    assert.equal((await b.downloadToBuffer()).toString(), "back");
    await c.delete();
    await blobs.setProperties({ cors: before.cors ?? [], deleteRetentionPolicy: before.deleteRetentionPolicy });
  });

  test("account information", async () => {
    const info = await blobs.getAccountInfo();
    assert.equal(info.accountKind, "StorageV2");
    assert.ok(info.skuName);
  });

  // Get Blob/Queue/Table Service Stats answer on the secondary endpoint
  // only ("the -secondary suffix is required", the REST pages); on the
  // primary Azure answers 400 InvalidQueryParameterValue
  // (Azure/azure-cosmos-table-dotnet#26).
  test("service statistics on the secondary endpoint only", async () => {
    // The code is read from the header: @azure/data-tables maps an error
    // body only in its JSON form, and Azure answers this XML operation's
    // errors in XML.
    const primaryIsRefused = (err) => err.statusCode === 400 &&
      err.response.headers.get("x-ms-error-code") === "InvalidQueryParameterValue";
    const secondary = (url) => url.replace(`/${account}`, `/${account}-secondary`);
    const clients = [
      [blobs, new BlobServiceClient(secondary(urls.blob), new StorageSharedKeyCredential(account, accountKey))],
      [QueueServiceClient.fromConnectionString(connectionString),
        new QueueServiceClient(secondary(urls.queue), new QueueKeyCredential(account, accountKey))],
      [TableServiceClient.fromConnectionString(connectionString, { allowInsecureConnection: true }),
        new TableServiceClient(secondary(urls.table), new AzureNamedKeyCredential(account, accountKey), { allowInsecureConnection: true })],
    ];
    for (const [primary, onSecondary] of clients) {
      await assert.rejects(primary.getStatistics(), primaryIsRefused);
      const stats = await onSecondary.getStatistics();
      assert.equal(stats.geoReplication.status, "live");
      // @azure/data-tables names the time lastSyncTime, the others lastSyncOn.
      assert.ok((stats.geoReplication.lastSyncOn ?? stats.geoReplication.lastSyncTime) instanceof Date);
    }
  });

  test("a public container is read anonymously, a private one is not", async () => {
    const c = blobs.getContainerClient(name("public"));
    await c.create({ access: "container" });
    await c.getBlockBlobClient("open.txt").upload("open", 4);
    const anonymous = new ContainerClient(c.url);
    const names = [];
    for await (const b of anonymous.listBlobsFlat()) names.push(b.name);
    assert.deepEqual(names, ["open.txt"]);
    assert.equal((await anonymous.getBlockBlobClient("open.txt").downloadToBuffer()).toString(), "open");
    await c.setAccessPolicy("blob");
    await assert.rejects(async () => { for await (const _ of anonymous.listBlobsFlat()) { /* listing needs container access */ } },
      (err) => err.statusCode === 404 && err.code === "ResourceNotFound");
    assert.equal((await anonymous.getBlockBlobClient("open.txt").downloadToBuffer()).toString(), "open");
    await c.setAccessPolicy(undefined);
    await assert.rejects(anonymous.getBlockBlobClient("open.txt").download(), (err) => err.statusCode === 404);
    await c.delete();
  });

  test("access tiers", async () => {
    const c = blobs.getContainerClient(name("tier"));
    await c.create();
    const b = c.getBlockBlobClient("t.txt");
    await b.upload("tiered", 6, { tier: "Cool" });
    assert.equal((await b.getProperties()).accessTier, "Cool");
    await b.setAccessTier("Hot");
    assert.equal((await b.getProperties()).accessTier, "Hot");
    await b.setAccessTier("Archive");
    await assert.rejects(b.download(), (err) => err.statusCode === 409 && err.code === "BlobArchived");
    await c.delete();
  });

  test("queue, table and file service properties", async () => {
    const queues = QueueServiceClient.fromConnectionString(connectionString);
    await queues.setProperties({ minuteMetrics: { enabled: true, includeAPIs: true, version: "1.0", retentionPolicy: { enabled: true, days: 3 } } });
    assert.equal((await queues.getProperties()).minuteMetrics.retentionPolicy.days, 3);
    const tables = TableServiceClient.fromConnectionString(connectionString, { allowInsecureConnection: true });
    await tables.setProperties({ cors: [{ allowedOrigins: "*", allowedMethods: "GET", allowedHeaders: "*", exposedHeaders: "*", maxAgeInSeconds: 5 }] });
    assert.equal((await tables.getProperties()).cors.length, 1);
    await tables.setProperties({ cors: [] });
    const shares = ShareServiceClient.fromConnectionString(connectionString);
    await shares.setProperties({ cors: [{ allowedOrigins: "https://files.example", allowedMethods: "GET", allowedHeaders: "*", exposedHeaders: "*", maxAgeInSeconds: 9 }] });
    const fileProps = await shares.getProperties();
    assert.equal(fileProps.cors.length, 1);
    assert.equal(fileProps.cors[0].maxAgeInSeconds, 9);
    await shares.setProperties({ cors: [] });
  });
});
