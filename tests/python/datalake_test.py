"""The Data Lake Storage Gen2 (dfs) workflows a user's code runs with the
Python SDK (azure.storage.filedatalake, Debian's python3-azure) on an account
with a hierarchical namespace. python_test.go starts Lazuli and runs this
file with unittest; the SDK sends its dfs requests to the Blob endpoint, as it
does for every IP-style (emulator) URL.

Environment: LAZULI_DATALAKE_BLOB_URL (the Blob endpoint, with the account),
LAZULI_ACCOUNT and LAZULI_ACCOUNT_KEY.
"""

import datetime
import os
import unittest
import uuid

from azure.core.exceptions import HttpResponseError
from azure.storage.filedatalake import (
    AccessControlChangeCounters,
    AccountSasPermissions,
    DataLakeFileClient,
    DataLakeServiceClient,
    FileSystemClient,
    FileSystemSasPermissions,
    ResourceTypes,
    generate_account_sas,
    generate_file_system_sas,
)

ACCOUNT = os.environ["LAZULI_ACCOUNT"]
KEY = os.environ["LAZULI_ACCOUNT_KEY"]
URL = os.environ["LAZULI_DATALAKE_BLOB_URL"]


def unique(prefix):
    return prefix + uuid.uuid4().hex[:12]


def service():
    return DataLakeServiceClient(URL, credential={"account_name": ACCOUNT, "account_key": KEY})


def listed(fs, path, recursive):
    return [(p.name, bool(p.is_directory)) for p in fs.get_paths(path=path, recursive=recursive)]


class DataLakeTest(unittest.TestCase):
    def assertRefused(self, status, code, call, *args, **kwargs):
        with self.assertRaises(HttpResponseError) as caught:
            call(*args, **kwargs)
        self.assertEqual(caught.exception.status_code, status, str(caught.exception))
        self.assertEqual(caught.exception.error_code, code, str(caught.exception))


class FileSystems(DataLakeTest):
    def test_create_properties_list_delete(self):
        svc = service()
        name = unique("pyfs")
        fs = svc.create_file_system(name, metadata={"owner": "python"})
        self.assertEqual(fs.get_file_system_properties().metadata, {"owner": "python"})
        self.assertEqual([f.name for f in svc.list_file_systems(name_starts_with=name)], [name])
        fs.delete_file_system()
        self.assertFalse(fs.exists())


class Paths(DataLakeTest):
    @classmethod
    def setUpClass(cls):
        cls.fs = service().create_file_system(unique("pypaths"))

    @classmethod
    def tearDownClass(cls):
        cls.fs.delete_file_system()

    def test_directory_upload_and_ranged_read(self):
        directory = self.fs.create_directory(unique("dir"))
        self.assertTrue(directory.exists())
        self.assertEqual(directory.get_directory_properties().metadata.get("hdi_isfolder"), "true")
        data = os.urandom(300 * 1024)
        file = directory.get_file_client("data.bin")
        file.upload_data(data, overwrite=True, chunk_size=100 * 1024)
        self.assertEqual(file.get_file_properties().size, len(data))
        self.assertEqual(file.download_file().readall(), data)
        self.assertEqual(file.download_file(offset=1000, length=5000).readall(), data[1000:6000])

    def test_append_and_flush(self):
        file = self.fs.create_file(unique("appended"))
        file.append_data(b"hello, ", offset=0, length=7)
        file.append_data(b"data lake", offset=7, length=9)
        self.assertEqual(file.get_file_properties().size, 0)
        self.assertRefused(400, "InvalidFlushPosition", file.flush_data, 17)
        file.flush_data(16)
        self.assertEqual(file.download_file().readall(), b"hello, data lake")

    def test_list_paths(self):
        top = unique("tree")
        self.fs.create_file(top + "/a/b/c.txt")
        self.fs.create_file(top + "/a/d.txt")
        self.fs.create_file(top + "/e.txt")
        self.assertEqual(listed(self.fs, top, True), [
            (top + "/a", True), (top + "/a/b", True), (top + "/a/b/c.txt", False),
            (top + "/a/d.txt", False), (top + "/e.txt", False)])
        self.assertEqual(listed(self.fs, top, False), [(top + "/a", True), (top + "/e.txt", False)])

    def test_rename_file_and_directory(self):
        top = unique("mv")
        file = self.fs.create_file(top + "/src/x.txt")
        self.fs.create_file(top + "/src/sub/z.txt")
        self.fs.create_directory(top + "/dst")
        file.rename_file(self.fs.file_system_name + "/" + top + "/dst/y.txt")
        self.assertFalse(file.exists())
        self.assertTrue(self.fs.get_file_client(top + "/dst/y.txt").exists())
        self.fs.get_directory_client(top + "/src").rename_directory(self.fs.file_system_name + "/" + top + "/moved")
        self.assertEqual(listed(self.fs, top, True), [
            (top + "/dst", True), (top + "/dst/y.txt", False), (top + "/moved", True),
            (top + "/moved/sub", True), (top + "/moved/sub/z.txt", False)])

    def test_access_control(self):
        file = self.fs.create_file(unique("acl"), permissions="0640", umask="0000")
        acl = file.get_access_control()
        self.assertEqual((acl["owner"], acl["group"], acl["permissions"]), ("$superuser", "$superuser", "rw-r-----"))
        file.set_access_control(permissions="0750")
        self.assertEqual(file.get_access_control()["permissions"], "rwxr-x---")
        user = str(uuid.uuid4())
        file.set_access_control(acl="user::rw-,user:%s:r--,group::r--,mask::r--,other::---" % user)
        acl = file.get_access_control()
        self.assertIn("user:%s:r--" % user, acl["acl"].split(","))
        self.assertEqual(acl["permissions"], "rw-r-----+")

    def test_access_control_recursive(self):
        top = unique("aclr")
        self.fs.create_file(top + "/a/one.txt")
        self.fs.create_file(top + "/two.txt")
        user = str(uuid.uuid4())
        result = self.fs.get_directory_client(top).update_access_control_recursive(acl="user:%s:r-x" % user)
        self.assertEqual(
            (result.counters.directories_successful, result.counters.files_successful, result.counters.failure_count),
            (2, 2, 0))
        self.assertIsInstance(result.counters, AccessControlChangeCounters)

    def test_lease_guards_append_and_flush(self):
        file = self.fs.create_file(unique("leased"))
        lease = file.acquire_lease(lease_duration=15)
        self.assertRefused(412, "LeaseIdMissing", file.append_data, b"under lease", 0, 11)
        file.append_data(b"under lease", 0, 11, lease=lease)
        file.flush_data(11, lease=lease)
        lease.release()
        self.assertEqual(file.download_file().readall(), b"under lease")

    def test_lease_lifecycle(self):
        # The SDK's lease client sends Blob lease calls (Lease Blob).
        file = self.fs.create_file(unique("pathlease"))
        lease = file.acquire_lease(lease_duration=15)
        self.assertEqual(file.get_file_properties().lease.state, "leased")
        lease.renew()
        lease.change(str(uuid.uuid4()))
        lease.break_lease(lease_break_period=0)
        self.assertEqual(file.get_file_properties().lease.state, "broken")

    def test_file_system_sas(self):
        expiry = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)
        name = self.fs.file_system_name
        sas = generate_file_system_sas(ACCOUNT, name, KEY, permission=FileSystemSasPermissions(
            read=True, add=True, create=True, write=True, delete=True, list=True), expiry=expiry)
        by_sas = FileSystemClient(URL, name, credential=sas)
        top = unique("sas")
        file = by_sas.get_file_client(top + "/by-sas.txt")
        file.upload_data(b"written with a SAS", overwrite=True)
        self.assertEqual(file.download_file().readall(), b"written with a SAS")
        self.assertEqual(listed(by_sas, top, True), [(top + "/by-sas.txt", False)])
        read_only = FileSystemClient(URL, name, credential=generate_file_system_sas(
            ACCOUNT, name, KEY, permission=FileSystemSasPermissions(read=True, list=True), expiry=expiry))
        self.assertEqual(read_only.get_file_client(top + "/by-sas.txt").download_file().readall(), b"written with a SAS")
        self.assertRefused(403, "AuthorizationPermissionMismatch", read_only.create_file, top + "/refused.txt")

    def test_account_sas_rename_and_access_control(self):
        # As the SDK's live test_rename_file_with_account_sas: an account SAS
        # of objects with read, write, delete and create writes a file and
        # renames it, each end signed with it; its write sets the access
        # control. Its process (p) is not Data Lake's permissions letter.
        expiry = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)
        name = self.fs.file_system_name
        top = unique("acctsas")

        def client(path, permission):
            sas = generate_account_sas(ACCOUNT, KEY, ResourceTypes(object=True), permission, expiry)
            return DataLakeFileClient(URL, name, path, credential=sas)

        file = client(top + "/old.txt", AccountSasPermissions(read=True, write=True, delete=True, create=True))
        file.create_file()
        file.append_data(b"abc", 0, 3)
        file.flush_data(3)
        moved = file.rename_file(name + "/" + top + "/new.txt")
        self.assertEqual(moved.download_file().readall(), b"abc")
        self.assertFalse(self.fs.get_file_client(top + "/old.txt").exists())
        moved.set_access_control(permissions="0750")
        self.assertEqual(moved.get_access_control()["permissions"], "rwxr-x---")
        # This SDK's AccountSasPermissions has no process: the letters as sent.
        process = client(top + "/new.txt", "rp")
        self.assertRefused(403, "AuthorizationPermissionMismatch", process.set_access_control, permissions="0700")
        self.assertRefused(403, "AuthorizationPermissionMismatch", process.rename_file, name + "/" + top + "/again.txt")
        self.assertEqual(self.fs.get_file_client(top + "/new.txt").get_access_control()["permissions"], "rwxr-x---")

    def test_delete_recursive(self):
        # delete_directory is always recursive in this SDK.
        top = unique("del")
        file = self.fs.create_file(top + "/keep/f.txt")
        gone = self.fs.create_file(top + "/gone.txt")
        gone.delete_file()
        self.assertFalse(gone.exists())
        self.assertRefused(404, "PathNotFound", gone.delete_file)
        directory = self.fs.get_directory_client(top + "/keep")
        directory.delete_directory()
        self.assertFalse(directory.exists())
        self.assertFalse(file.exists())


if __name__ == "__main__":
    unittest.main()
