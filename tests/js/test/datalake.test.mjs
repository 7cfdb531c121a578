// The Data Lake Storage Gen2 (dfs) workflows a user's code runs with
// @azure/storage-file-datalake on an account with a hierarchical namespace:
// filesystems, directories and files, upload, append and flush, ranged
// reads, listing, rename, POSIX access control, leases, a SAS-authorized
// client and recursive delete. The SDK sends its dfs requests to the Blob
// endpoint, as it does for every IP-style (emulator) URL.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import {
  DataLakeFileSystemClient, DataLakeServiceClient, FileSystemSASPermissions, StorageSharedKeyCredential,
} from "@azure/storage-file-datalake";
import { account, accountKey, dataLakeUrl, name } from "./env.mjs";

async function rejectsWith(promise, status, code) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.statusCode, status, `${err.statusCode} ${err.code}: ${err.message}`);
    if (code) assert.equal(err.code, code);
    return true;
  });
}

async function paths(fileSystem, options) {
  const out = [];
  for await (const p of fileSystem.listPaths(options)) out.push({ name: p.name, isDirectory: p.isDirectory === true });
  return out;
}

const credential = new StorageSharedKeyCredential(account, accountKey);
const service = new DataLakeServiceClient(dataLakeUrl, credential);
const inAnHour = () => new Date(Date.now() + 3600_000);

describe("Data Lake filesystems", () => {
  test("create, properties, list and delete", async () => {
    const fs = service.getFileSystemClient(name("dlfs"));
    await fs.create({ metadata: { owner: "js" } });
    await rejectsWith(fs.create(), 409, "ContainerAlreadyExists");
    assert.deepEqual((await fs.getProperties()).metadata, { owner: "js" });
    const listed = [];
    for await (const item of service.listFileSystems({ prefix: fs.name })) listed.push(item.name);
    assert.deepEqual(listed, [fs.name]);
    await fs.delete();
    assert.equal(await fs.exists(), false);
  });
});

describe("Data Lake paths", () => {
  const fs = service.getFileSystemClient(name("dlpaths"));
  before(() => fs.create());
  after(() => fs.delete());

  test("create a directory, upload a file into it and read ranges", async () => {
    const dir = fs.getDirectoryClient(name("dir"));
    await dir.create();
    assert.equal(await dir.exists(), true);
    assert.equal((await dir.getProperties()).metadata.hdi_isfolder, "true");
    await rejectsWith(dir.create({ conditions: { ifNoneMatch: "*" } }), 409, "PathAlreadyExists");
    const data = randomBytes(300 * 1024);
    const file = dir.getFileClient("data.bin");
    await file.upload(data, { chunkSize: 100 * 1024, pathHttpHeaders: { contentType: "application/octet-stream" } });
    const props = await file.getProperties();
    assert.equal(props.contentLength, data.length);
    assert.equal(props.contentType, "application/octet-stream");
    assert.ok((await file.readToBuffer()).equals(data));
    assert.ok((await file.readToBuffer(1000, 5000)).equals(data.subarray(1000, 6000)));
    const ranged = await file.read(100 * 1024, 10);
    assert.equal(ranged.contentLength, 10);
    assert.equal(ranged.contentRange, `bytes ${100 * 1024}-${100 * 1024 + 9}/${data.length}`);
  });

  test("append and flush commit exactly the data flushed", async () => {
    const file = fs.getFileClient(name("appended"));
    await file.create();
    const first = Buffer.from("hello, ");
    const second = Buffer.from("data lake");
    await file.append(first, 0, first.length);
    await file.append(second, first.length, second.length);
    assert.equal((await file.getProperties()).contentLength, 0, "appended data is not readable before the flush");
    await rejectsWith(file.flush(first.length + 1), 400, "InvalidFlushPosition");
    await file.flush(first.length + second.length, { close: true, pathHttpHeaders: { contentType: "text/plain" } });
    const props = await file.getProperties();
    assert.equal(props.contentLength, first.length + second.length);
    assert.equal(props.contentType, "text/plain");
    assert.equal((await file.readToBuffer()).toString(), "hello, data lake");
    const more = Buffer.from("!");
    await file.append(more, first.length + second.length, more.length, { flush: true });
    assert.equal((await file.readToBuffer()).toString(), "hello, data lake!");
  });

  test("list paths, recursive and not", async () => {
    const top = name("tree");
    // On a hierarchical namespace, creating a file creates its missing parents.
    await fs.getFileClient(`${top}/a/b/c.txt`).create();
    await fs.getFileClient(`${top}/a/d.txt`).create();
    await fs.getFileClient(`${top}/e.txt`).create();
    assert.deepEqual(await paths(fs, { path: top, recursive: true }), [
      { name: `${top}/a`, isDirectory: true },
      { name: `${top}/a/b`, isDirectory: true },
      { name: `${top}/a/b/c.txt`, isDirectory: false },
      { name: `${top}/a/d.txt`, isDirectory: false },
      { name: `${top}/e.txt`, isDirectory: false },
    ]);
    assert.deepEqual(await paths(fs, { path: top, recursive: false }), [
      { name: `${top}/a`, isDirectory: true },
      { name: `${top}/e.txt`, isDirectory: false },
    ]);
    const pages = [];
    for await (const page of fs.listPaths({ path: top, recursive: true }).byPage({ maxPageSize: 2 })) {
      pages.push(page.pathItems.length);
    }
    assert.deepEqual(pages, [2, 2, 1]);
  });

  test("rename a file and a directory", async () => {
    const top = name("mv");
    const file = fs.getFileClient(`${top}/src/x.txt`);
    await file.create();
    await fs.getFileClient(`${top}/src/sub/z.txt`).create();
    await fs.getDirectoryClient(`${top}/dst`).create();
    await file.move(`${top}/dst/y.txt`);
    assert.equal(await file.exists(), false);
    assert.equal(await fs.getFileClient(`${top}/dst/y.txt`).exists(), true);
    await rejectsWith(fs.getFileClient(`${top}/missing.txt`).move(`${top}/dst/w.txt`), 404, "SourcePathNotFound");

    await fs.getDirectoryClient(`${top}/src`).move(`${top}/moved`);
    assert.deepEqual(await paths(fs, { path: top, recursive: true }), [
      { name: `${top}/dst`, isDirectory: true },
      { name: `${top}/dst/y.txt`, isDirectory: false },
      { name: `${top}/moved`, isDirectory: true },
      { name: `${top}/moved/sub`, isDirectory: true },
      { name: `${top}/moved/sub/z.txt`, isDirectory: false },
    ]);
  });

  test("get and set access control", async () => {
    const file = fs.getFileClient(name("acl"));
    await file.create({ permissions: "0640", umask: "0000" });
    let acl = await file.getAccessControl();
    assert.equal(acl.owner, "$superuser");
    assert.equal(acl.group, "$superuser");
    assert.deepEqual(acl.permissions.owner, { read: true, write: true, execute: false });
    assert.deepEqual(acl.permissions.group, { read: true, write: false, execute: false });
    assert.deepEqual(acl.permissions.other, { read: false, write: false, execute: false });

    await file.setPermissions({
      owner: { read: true, write: true, execute: true }, group: { read: true, write: false, execute: true },
      other: { read: false, write: false, execute: false }, stickyBit: false, extendedAcls: false,
    });
    acl = await file.getAccessControl();
    assert.deepEqual(acl.permissions.group, { read: true, write: false, execute: true });

    const user = randomUUID();
    await file.setAccessControl([
      { defaultScope: false, accessControlType: "user", entityId: "", permissions: { read: true, write: true, execute: false } },
      { defaultScope: false, accessControlType: "user", entityId: user, permissions: { read: true, write: false, execute: false } },
      { defaultScope: false, accessControlType: "group", entityId: "", permissions: { read: true, write: false, execute: false } },
      { defaultScope: false, accessControlType: "mask", entityId: "", permissions: { read: true, write: false, execute: false } },
      { defaultScope: false, accessControlType: "other", entityId: "", permissions: { read: false, write: false, execute: false } },
    ]);
    acl = await file.getAccessControl();
    const named = acl.acl.find((e) => e.accessControlType === "user" && e.entityId === user);
    assert.deepEqual(named?.permissions, { read: true, write: false, execute: false });
    assert.equal(acl.permissions.extendedAcls, true);
  });

  test("set access control recursively on a directory", async () => {
    const top = name("aclr");
    await fs.getFileClient(`${top}/a/one.txt`).create();
    await fs.getFileClient(`${top}/two.txt`).create();
    const user = randomUUID();
    const result = await fs.getDirectoryClient(top).updateAccessControlRecursive([
      { defaultScope: false, accessControlType: "user", entityId: user, permissions: { read: true, write: false, execute: true } },
    ]);
    assert.deepEqual(result.counters, { changedDirectoriesCount: 2, changedFilesCount: 2, failedChangesCount: 0 });
    const acl = await fs.getFileClient(`${top}/a/one.txt`).getAccessControl();
    assert.ok(acl.acl.some((e) => e.accessControlType === "user" && e.entityId === user));
  });

  test("a lease guards append and flush", async () => {
    const file = fs.getFileClient(name("leased"));
    await file.create();
    const lease = file.getDataLakeLeaseClient();
    const { leaseId } = await lease.acquireLease(15);
    const data = Buffer.from("under lease");
    await rejectsWith(file.append(data, 0, data.length), 412, "LeaseIdMissing");
    await file.append(data, 0, data.length, { conditions: { leaseId } });
    await rejectsWith(file.flush(data.length), 412, "LeaseIdMissing");
    await file.flush(data.length, { conditions: { leaseId } });
    await lease.releaseLease();
    assert.equal((await file.readToBuffer()).toString(), "under lease");
  });

  test("append acquires a lease and flush releases it", async () => {
    const file = fs.getFileClient(name("leaseaction"));
    await file.create();
    const leaseId = randomUUID();
    const data = Buffer.from("leased by append");
    await file.append(data, 0, data.length, { leaseAction: "acquire", leaseDurationInSeconds: 15, proposedLeaseId: leaseId });
    assert.equal((await file.getProperties()).leaseState, "leased");
    await file.flush(data.length, { leaseAction: "release", conditions: { leaseId } });
    assert.equal((await file.getProperties()).leaseState, "available");
    assert.equal((await file.readToBuffer()).toString(), "leased by append");
  });

  test("a client authorized by a filesystem SAS", async () => {
    const sasUrl = await fs.generateSasUrl({ permissions: FileSystemSASPermissions.parse("racwdl"), expiresOn: inAnHour() });
    const bySas = new DataLakeFileSystemClient(sasUrl);
    const top = name("sas");
    const file = bySas.getFileClient(`${top}/by-sas.txt`);
    await file.upload(Buffer.from("written with a SAS"));
    assert.equal((await file.readToBuffer()).toString(), "written with a SAS");
    assert.deepEqual(await paths(bySas, { path: top, recursive: true }), [{ name: `${top}/by-sas.txt`, isDirectory: false }]);

    const readOnlyUrl = await fs.generateSasUrl({ permissions: FileSystemSASPermissions.parse("rl"), expiresOn: inAnHour() });
    const readOnly = new DataLakeFileSystemClient(readOnlyUrl);
    assert.equal((await readOnly.getFileClient(`${top}/by-sas.txt`).readToBuffer()).toString(), "written with a SAS");
    await rejectsWith(readOnly.getFileClient(`${top}/refused.txt`).create(), 403, "AuthorizationPermissionMismatch");
  });

  test("delete a file, and a non-empty directory only recursively", async () => {
    const top = name("del");
    const file = fs.getFileClient(`${top}/keep/f.txt`);
    await file.create();
    await fs.getFileClient(`${top}/gone.txt`).create();
    await fs.getFileClient(`${top}/gone.txt`).delete();
    assert.equal(await fs.getFileClient(`${top}/gone.txt`).exists(), false);
    const dir = fs.getDirectoryClient(`${top}/keep`);
    await rejectsWith(dir.delete(false), 409, "DirectoryNotEmpty");
    assert.equal(await file.exists(), true);
    await dir.delete(true);
    assert.equal(await dir.exists(), false);
    assert.equal(await file.exists(), false);
    await rejectsWith(dir.delete(true), 404, "PathNotFound");
  });
});
