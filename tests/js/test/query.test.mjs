// Query Blob Contents through the SDK's quick query reader, which parses
// the Avro stream the service answers with.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { BlobServiceClient } from "@azure/storage-blob";
import { connectionString, name } from "./env.mjs";

const service = BlobServiceClient.fromConnectionString(connectionString);

async function text(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

describe("quick query", () => {
  const container = service.getContainerClient(name("query"));
  before(() => container.create());
  after(() => container.delete());

  test("SQL over CSV with headers, answered as JSON, with progress", async () => {
    const blob = container.getBlockBlobClient("scores.csv");
    let csv = "id,name,score\n";
    for (let i = 0; i < 2000; i++) csv += `${i},player-${i},${i % 100}\n`;
    await blob.upload(csv, csv.length);
    let scanned = 0;
    const errors = [];
    const response = await blob.query("SELECT name FROM BlobStorage WHERE score = 99 AND id < 300", {
      inputTextConfiguration: { kind: "csv", recordSeparator: "\n", hasHeaders: true },
      outputTextConfiguration: { kind: "json", recordSeparator: "\n" },
      onProgress: (p) => { scanned = p.loadedBytes; },
      onError: (e) => errors.push(e),
    });
    assert.equal(await text(response.readableStreamBody),
      '{"name":"player-99"}\n{"name":"player-199"}\n{"name":"player-299"}\n');
    assert.equal(scanned, csv.length);
    assert.deepEqual(errors, []);
  });

  test("aggregates over JSON lines, and a fatal error for input that is not JSON", async () => {
    const blob = container.getBlockBlobClient("items.json");
    const lines = '{"kind":"a","n":2}\n{"kind":"b","n":5}\n{"kind":"a","n":7}\n';
    await blob.upload(lines, lines.length);
    const response = await blob.query("SELECT COUNT(*), SUM(n) FROM BlobStorage WHERE kind = 'a'", {
      inputTextConfiguration: { kind: "json", recordSeparator: "\n" },
    });
    assert.equal(await text(response.readableStreamBody), "2,9\n");
    const csvBlob = container.getBlockBlobClient("not.json");
    await csvBlob.upload("a,b\n1,2\n", 8);
    const errors = [];
    const bad = await csvBlob.query("SELECT * FROM BlobStorage", {
      inputTextConfiguration: { kind: "json", recordSeparator: "\n" },
      onError: (e) => errors.push(e),
    });
    await text(bad.readableStreamBody);
    assert.equal(errors.length, 1);
    assert.equal(errors[0].isFatal, true);
    // The service's name and text for input that is not JSON, as recorded in
    // azure-sdk-for-python test_quick_query.test_quick_query_readall_with_fatal_error_handler.
    assert.equal(errors[0].name, "InternalError");
    assert.equal(errors[0].description, "Internal parse exception.");
  });
});
