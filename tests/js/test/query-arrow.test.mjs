// Query Blob Contents with Arrow output through the SDK's quick query
// reader: the SDK sends the ArrowConfiguration schema, reads the Avro
// stream, and hands back the Arrow IPC stream the result data holds.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { BlobServiceClient } from "@azure/storage-blob";
import { connectionString, name } from "./env.mjs";

const service = BlobServiceClient.fromConnectionString(connectionString);

async function bytes(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

// table reads the fields of the FlatBuffers table at pos: field i's
// absolute position, or undefined when absent.
function table(buf, pos) {
  const vtable = pos - buf.readInt32LE(pos);
  const size = buf.readUInt16LE(vtable);
  return (i) => {
    if (4 + 2 * i >= size) return undefined;
    const off = buf.readUInt16LE(vtable + 4 + 2 * i);
    return off === 0 ? undefined : pos + off;
  };
}

// int64 reads the FlatBuffers int64 field at pos, which a builder leaves
// out (undefined) when it holds the default, 0.
function int64(buf, pos) {
  return pos === undefined ? 0 : Number(buf.readBigInt64LE(pos));
}

// messages walks an Arrow IPC stream to its end: each message's header type
// (1 schema, 3 record batch), the rows of a record batch, and its body. Azure
// sends no end-of-stream marker after the last message (its recorded quick
// query sessions end with the last record batch); one would end the walk.
function messages(buf) {
  const out = [];
  let at = 0;
  while (at < buf.length) {
    assert.equal(buf.readUInt32LE(at), 0xffffffff, `continuation marker at ${at}`);
    const metaLength = buf.readInt32LE(at + 4);
    at += 8;
    if (metaLength === 0) break;
    const meta = buf.subarray(at, at + metaLength);
    const message = table(meta, meta.readUInt32LE(0));
    const headerType = meta.readUInt8(message(1));
    const bodyLength = int64(meta, message(3));
    const header = message(2) + meta.readUInt32LE(message(2));
    const rows = headerType === 3 ? int64(meta, table(meta, header)(0)) : 0;
    at += metaLength;
    out.push({ headerType, rows, meta, body: buf.subarray(at, at + bodyLength) });
    at += bodyLength;
  }
  assert.equal(at, buf.length, "nothing after the last message");
  return out;
}

describe("quick query with Arrow output", () => {
  const container = service.getContainerClient(name("arrow"));
  before(() => container.create());
  after(() => container.delete());

  test("the result data is an Arrow stream of the requested schema", async () => {
    const blob = container.getBlockBlobClient("scores.csv");
    let csv = "id,name,score\n";
    for (let i = 0; i < 20000; i++) csv += `${i},player-${i},${i % 100}\n`;
    await blob.upload(csv, csv.length);
    const errors = [];
    const response = await blob.query("SELECT id, name FROM BlobStorage WHERE score = 42", {
      inputTextConfiguration: { kind: "csv", recordSeparator: "\n", hasHeaders: true },
      outputTextConfiguration: { kind: "arrow", schema: [{ type: "int64", name: "id" }, { type: "string", name: "name" }] },
      onError: (e) => errors.push(e),
    });
    const stream = messages(await bytes(response.readableStreamBody));
    assert.deepEqual(errors, []);
    assert.equal(stream[0].headerType, 1, "a schema first");
    assert.ok(stream[0].meta.includes("name") && stream[0].meta.includes("id"));
    const batches = stream.slice(1);
    assert.ok(batches.every((m) => m.headerType === 3));
    assert.equal(batches.reduce((n, m) => n + m.rows, 0), 200);
    const body = Buffer.concat(batches.map((m) => m.body)).toString("latin1");
    // The names lie end to end in the string column's data buffer.
    assert.equal(body.split("player-").length - 1, 200);
    assert.ok(body.includes("player-42player-142player-242"));
  });

  test("a schema the service does not accept is 400", async () => {
    const blob = container.getBlockBlobClient("tiny.csv");
    await blob.upload("a\n1\n", 4);
    await assert.rejects(
      blob.query("SELECT * FROM BlobStorage", { outputTextConfiguration: { kind: "arrow", schema: [{ type: "int32", name: "a" }] } }),
      (e) => e.statusCode === 400 && e.code === "InvalidXmlNodeValue");
  });
});
