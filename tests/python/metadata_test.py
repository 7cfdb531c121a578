"""Metadata names keep the case they were given, as Azure keeps them
("Metadata names preserve the case with which they were created, but are
case-insensitive when set or read": Naming and Referencing Containers, Blobs,
and Metadata), on every resource that has metadata, read back through
Debian's python3-azure as a user's code reads it: Get Properties (response
headers) and listings (XML element names). The SDK's own
test_set_blob_metadata_with_upper_case and test_set_file_metadata_with_upper_case
(azure-sdk-for-python) set {"hello": "world", "number": "42", "UP": "UPval"}
and read "UP" back; they are marked live-only because the test proxy's
recordings lower-case header names.

Environment: LAZULI_BLOB_URL, LAZULI_QUEUE_URL, LAZULI_FILE_URL (each with
the account), LAZULI_ACCOUNT and LAZULI_ACCOUNT_KEY.
"""

import os
import unittest
import uuid

from azure.storage.blob import BlobServiceClient
from azure.storage.fileshare import ShareServiceClient
from azure.storage.queue import QueueServiceClient

ACCOUNT = os.environ["LAZULI_ACCOUNT"]
KEY = os.environ["LAZULI_ACCOUNT_KEY"]
CREDENTIAL = {"account_name": ACCOUNT, "account_key": KEY}

# Upper, lower and mixed case, as the SDKs' own tests send them.
METADATA = {"hello": "world", "UP": "UPval", "camelCase": "mixed"}


def unique(prefix):
    return prefix + uuid.uuid4().hex[:12]


class BlobMetadata(unittest.TestCase):
    def setUp(self):
        self.service = BlobServiceClient(os.environ["LAZULI_BLOB_URL"], credential=CREDENTIAL)
        self.container = self.service.create_container(unique("meta"), metadata=METADATA)
        self.addCleanup(self.container.delete_container)

    def test_container_properties_and_listing(self):
        self.assertEqual(self.container.get_container_properties().metadata, METADATA)
        listed = [c for c in self.service.list_containers(name_starts_with=self.container.container_name,
                                                          include_metadata=True)]
        self.assertEqual(listed[0].metadata, METADATA)

    def test_blob_properties_and_listing(self):
        blob = self.container.upload_blob("b.txt", b"data", metadata=METADATA)
        self.assertEqual(blob.get_blob_properties().metadata, METADATA)
        listed = list(self.container.list_blobs(include=["metadata"]))
        self.assertEqual(listed[0].metadata, METADATA)

    def test_set_metadata_replaces_whatever_the_case(self):
        blob = self.container.upload_blob("b.txt", b"data", metadata={"Name": "1"})
        blob.set_blob_metadata({"NAME": "2"})
        self.assertEqual(blob.get_blob_properties().metadata, {"NAME": "2"})


class QueueMetadata(unittest.TestCase):
    def test_queue_properties_and_listing(self):
        service = QueueServiceClient(os.environ["LAZULI_QUEUE_URL"], credential=CREDENTIAL)
        queue = service.create_queue(unique("meta"), metadata=METADATA)
        self.addCleanup(queue.delete_queue)
        self.assertEqual(queue.get_queue_properties().metadata, METADATA)
        listed = list(service.list_queues(name_starts_with=queue.queue_name, include_metadata=True))
        self.assertEqual(listed[0].metadata, METADATA)


class FileMetadata(unittest.TestCase):
    def test_share_directory_and_file(self):
        service = ShareServiceClient(os.environ["LAZULI_FILE_URL"], credential=CREDENTIAL)
        share = service.create_share(unique("meta"), metadata=METADATA)
        self.addCleanup(share.delete_share)
        self.assertEqual(share.get_share_properties().metadata, METADATA)
        directory = share.create_directory("dir", metadata=METADATA)
        self.assertEqual(directory.get_directory_properties().metadata, METADATA)
        file = directory.upload_file("f.txt", b"data", metadata=METADATA)
        self.assertEqual(file.get_file_properties().metadata, METADATA)


if __name__ == "__main__":
    unittest.main()
