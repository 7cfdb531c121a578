// Shared access signatures of each kind, made by the SDKs' own generators:
// account SAS, service SAS for blobs, queues, tables and files, and user
// delegation SAS signed with a key from Get User Delegation Key.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  AccountSASPermissions, AccountSASResourceTypes, AccountSASServices, BlobSASPermissions, BlobServiceClient,
  ContainerClient, BlockBlobClient, generateAccountSASQueryParameters, generateBlobSASQueryParameters,
  StorageSharedKeyCredential,
} from "@azure/storage-blob";
import { QueueClient, QueueSASPermissions, QueueServiceClient } from "@azure/storage-queue";
import { AzureNamedKeyCredential, TableClient, generateTableSas } from "@azure/data-tables";
import { FileSASPermissions, ShareClient, ShareFileClient, ShareSASPermissions, ShareServiceClient } from "@azure/storage-file-share";
import { account, accountKey, connectionString, name, objectId, tenantId, tlsUrls, tokenCredential, urls } from "./env.mjs";

const hour = () => new Date(Date.now() + 3600_000);
const sharedKey = new StorageSharedKeyCredential(account, accountKey);

async function rejectsWith(promise, status, code) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.statusCode, status, `${err.statusCode} ${err.code}: ${err.message}`);
    if (code) assert.equal(err.code ?? err.details?.odataError?.code, code);
    return true;
  });
}

describe("shared access signatures", () => {
  test("account SAS", async () => {
    const sas = generateAccountSASQueryParameters({
      expiresOn: hour(), permissions: AccountSASPermissions.parse("rwdlc"),
      services: AccountSASServices.parse("b").toString(), resourceTypes: AccountSASResourceTypes.parse("sco").toString(),
    }, sharedKey).toString();
    const service = new BlobServiceClient(`${urls.blob}?${sas}`);
    const c = service.getContainerClient(name("acctsas"));
    await c.create();
    await c.getBlockBlobClient("x.txt").upload("x", 1);
    const listed = [];
    for await (const b of c.listBlobsFlat()) listed.push(b.name);
    assert.deepEqual(listed, ["x.txt"]);
    const readOnly = generateAccountSASQueryParameters({
      expiresOn: hour(), permissions: AccountSASPermissions.parse("r"),
      services: "b", resourceTypes: "o",
    }, sharedKey).toString();
    const ro = new BlockBlobClient(`${urls.blob}/${c.containerName}/x.txt?${readOnly}`);
    assert.equal((await ro.downloadToBuffer()).toString(), "x");
    await rejectsWith(ro.upload("y", 1), 403, "AuthorizationPermissionMismatch");
    await c.delete();
  });

  test("blob and container service SAS", async () => {
    const admin = BlobServiceClient.fromConnectionString(connectionString);
    const c = admin.getContainerClient(name("svcsas"));
    await c.create();
    const blob = c.getBlockBlobClient("doc.txt");
    await blob.upload("secret", 6);
    const url = await blob.generateSasUrl({ permissions: BlobSASPermissions.parse("r"), expiresOn: hour(), contentType: "text/x-lazuli" });
    const viaSas = new BlockBlobClient(url);
    const res = await viaSas.download();
    assert.equal(res.contentType, "text/x-lazuli");
    await rejectsWith(viaSas.delete(), 403, "AuthorizationPermissionMismatch");
    const cUrl = await c.generateSasUrl({ permissions: "racwl", expiresOn: hour() });
    const viaContainerSas = new ContainerClient(cUrl);
    await viaContainerSas.getBlockBlobClient("new.txt").upload("n", 1);
    const names = [];
    for await (const b of viaContainerSas.listBlobsFlat()) names.push(b.name);
    assert.deepEqual(names, ["doc.txt", "new.txt"]);
    const expired = await blob.generateSasUrl({ permissions: "r", startsOn: new Date(Date.now() - 7200_000), expiresOn: new Date(Date.now() - 3600_000) });
    await rejectsWith(new BlockBlobClient(expired).download(), 403, "AuthenticationFailed");
    await c.delete();
  });

  test("service SAS naming a stored access policy", async () => {
    const admin = BlobServiceClient.fromConnectionString(connectionString);
    const c = admin.getContainerClient(name("policy"));
    await c.create();
    await c.getBlockBlobClient("p.txt").upload("policy", 6);
    await c.setAccessPolicy(undefined, [{ id: "readers", accessPolicy: { permissions: "rl", startsOn: new Date(Date.now() - 60_000), expiresOn: hour() } }]);
    const acl = await c.getAccessPolicy();
    assert.equal(acl.signedIdentifiers[0].id, "readers");
    const url = await c.getBlockBlobClient("p.txt").generateSasUrl({ identifier: "readers" });
    assert.equal((await new BlockBlobClient(url).downloadToBuffer()).toString(), "policy");
    await rejectsWith(new BlockBlobClient(url).delete(), 403, "AuthorizationPermissionMismatch");
    // Revoking the policy revokes every SAS that names it.
    await c.setAccessPolicy(undefined, []);
    await rejectsWith(new BlockBlobClient(url).download(), 403, "AuthenticationFailed");
    await c.delete();
  });

  test("queue service SAS", async () => {
    const q = QueueServiceClient.fromConnectionString(connectionString).getQueueClient(name("sasq"));
    await q.create();
    const url = q.generateSasUrl({ permissions: "ra", expiresOn: hour() });
    const viaSas = new QueueClient(url);
    await viaSas.sendMessage("hello");
    const peeked = await viaSas.peekMessages();
    assert.equal(peeked.peekedMessageItems[0].messageText, "hello");
    await rejectsWith(viaSas.receiveMessages(), 403, "AuthorizationPermissionMismatch");
    await q.delete();
  });

  test("table SAS", async () => {
    const tableName = name("sast");
    const admin = TableClient.fromConnectionString(connectionString, tableName, { allowInsecureConnection: true });
    await admin.createTable();
    const sas = generateTableSas(tableName, new AzureNamedKeyCredential(account, accountKey), {
      permissions: { add: true, query: true }, expiresOn: hour(),
    });
    const viaSas = new TableClient(`${urls.table}?${sas}`, tableName, { allowInsecureConnection: true });
    await viaSas.createEntity({ partitionKey: "p", rowKey: "r", v: 1 });
    const e = await viaSas.getEntity("p", "r");
    assert.equal(e.v, 1);
    await rejectsWith(viaSas.deleteEntity("p", "r"), 403, "AuthorizationPermissionMismatch");
    await admin.deleteTable();
  });

  test("file service SAS", async () => {
    const share = ShareServiceClient.fromConnectionString(connectionString).getShareClient(name("sass"));
    await share.create();
    const file = share.rootDirectoryClient.getFileClient("f.txt");
    await file.create(4);
    await file.uploadRange("data", 0, 4);
    const url = file.generateSasUrl({ permissions: FileSASPermissions.parse("r"), expiresOn: hour() });
    const viaSas = new ShareFileClient(url);
    assert.equal((await viaSas.downloadToBuffer()).toString(), "data");
    await rejectsWith(viaSas.delete(), 403, "AuthorizationPermissionMismatch");
    const shareUrl = share.generateSasUrl({ permissions: ShareSASPermissions.parse("rl"), expiresOn: hour() });
    const listed = [];
    for await (const item of new ShareClient(shareUrl).rootDirectoryClient.listFilesAndDirectories()) listed.push(item.name);
    assert.deepEqual(listed, ["f.txt"]);
    await share.delete();
  });

  test("user delegation SAS", async () => {
    const oauthService = new BlobServiceClient(tlsUrls.blob, tokenCredential);
    const c = oauthService.getContainerClient(name("udsas"));
    await c.create();
    await c.getBlockBlobClient("doc.txt").upload("delegated", 9);
    const start = new Date(Date.now() - 60_000);
    const key = await oauthService.getUserDelegationKey(start, hour());
    assert.equal(key.signedObjectId, objectId);
    assert.equal(key.signedTenantId, tenantId);
    assert.equal(key.signedService, "b");
    const sas = generateBlobSASQueryParameters({
      containerName: c.containerName, blobName: "doc.txt", permissions: BlobSASPermissions.parse("r"),
      expiresOn: hour(), protocol: "https", correlationId: "js-suite",
    }, key, account).toString();
    assert.match(sas, /skoid=/);
    const viaSas = new BlockBlobClient(`${c.url}/doc.txt?${sas}`);
    assert.equal((await viaSas.downloadToBuffer()).toString(), "delegated");
    await rejectsWith(viaSas.delete(), 403, "AuthorizationPermissionMismatch");
    const tampered = sas.replace(/sig=[^&]+/, "sig=" + encodeURIComponent(Buffer.alloc(32, 1).toString("base64")));
    await rejectsWith(new BlockBlobClient(`${c.url}/doc.txt?${tampered}`).download(), 403, "AuthenticationFailed");
    const containerSas = generateBlobSASQueryParameters({
      containerName: c.containerName, permissions: "rl", expiresOn: hour(),
    }, key, account).toString();
    const listed = [];
    for await (const b of new ContainerClient(`${c.url}?${containerSas}`).listBlobsFlat()) listed.push(b.name);
    assert.deepEqual(listed, ["doc.txt"]);
    // Every string-to-sign layout the SDK knows, each version's own.
    for (const version of ["2018-11-09", "2020-02-10", "2020-12-06", "2025-07-05", "2026-04-06"]) {
      const versioned = generateBlobSASQueryParameters({
        containerName: c.containerName, blobName: "doc.txt", permissions: "r", expiresOn: hour(), version,
        ...(version >= "2020-02-10" ? { preauthorizedAgentObjectId: objectId, correlationId: `v${version}` } : {}),
      }, key, account).toString();
      assert.equal((await new BlockBlobClient(`${c.url}/doc.txt?${versioned}`).downloadToBuffer()).toString(), "delegated", version);
    }
    // A key that has expired signs nothing, whatever the SAS says.
    const oldKey = { ...key, signedStartsOn: new Date(Date.now() - 7200_000), signedExpiresOn: new Date(Date.now() - 3600_000) };
    const stale = generateBlobSASQueryParameters({ containerName: c.containerName, blobName: "doc.txt", permissions: "r", expiresOn: hour() }, oldKey, account).toString();
    await rejectsWith(new BlockBlobClient(`${c.url}/doc.txt?${stale}`).download(), 403, "AuthenticationFailed");
    await c.delete();
  });

  test("user delegation SAS for a queue", async () => {
    const oauthQueues = new QueueServiceClient(tlsUrls.queue, tokenCredential);
    const q = oauthQueues.getQueueClient(name("udq"));
    await q.create();
    await q.sendMessage("for the delegate");
    const key = await oauthQueues.getUserDelegationKey(new Date(Date.now() - 60_000), hour());
    assert.equal(key.signedService, "q");
    const url = q.generateUserDelegationSasUrl({ permissions: QueueSASPermissions.parse("r"), expiresOn: hour() }, key);
    const viaSas = new QueueClient(url);
    assert.equal((await viaSas.peekMessages()).peekedMessageItems[0].messageText, "for the delegate");
    await rejectsWith(viaSas.sendMessage("no"), 403, "AuthorizationPermissionMismatch");
    await q.delete();
  });

  test("user delegation SAS for a file", async () => {
    const oauthShares = new ShareServiceClient(tlsUrls.file, tokenCredential, { fileRequestIntent: "backup" });
    const share = oauthShares.getShareClient(name("udf"));
    await share.create();
    const file = share.rootDirectoryClient.getFileClient("f.txt");
    await file.uploadData(Buffer.from("shared by key"));
    const key = await oauthShares.getUserDelegationKey(new Date(Date.now() - 60_000), hour());
    assert.equal(key.signedService, "f");
    const url = file.generateUserDelegationSasUrl({ permissions: FileSASPermissions.parse("r"), expiresOn: hour() }, key);
    const viaSas = new ShareFileClient(url);
    assert.equal((await viaSas.downloadToBuffer()).toString(), "shared by key");
    await rejectsWith(viaSas.delete(), 403, "AuthorizationPermissionMismatch");
    await share.delete();
  });
});
