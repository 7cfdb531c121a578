// Tables and entities with @azure/data-tables: CRUD, OData queries and
// entity group transactions.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TableClient, TableServiceClient, odata } from "@azure/data-tables";
import { connectionString, name } from "./env.mjs";

const options = { allowInsecureConnection: true };
const service = TableServiceClient.fromConnectionString(connectionString, options);

function tableName(prefix) {
  return name(prefix).replace(/[^A-Za-z0-9]/g, "");
}

describe("tables", () => {
  test("create, list and delete tables", async () => {
    const t = tableName("tbl");
    await service.createTable(t);
    const names = [];
    for await (const table of service.listTables({ queryOptions: { filter: odata`TableName eq ${t}` } })) names.push(table.name);
    assert.deepEqual(names, [t]);
    await service.deleteTable(t);
    const after = [];
    for await (const table of service.listTables({ queryOptions: { filter: odata`TableName eq ${t}` } })) after.push(table.name);
    assert.deepEqual(after, []);
  });

  test("entities: insert, get, update, merge, upsert, delete", async () => {
    const client = TableClient.fromConnectionString(connectionString, tableName("ent"), options);
    await client.createTable();
    const when = new Date("2026-01-02T03:04:05.678Z");
    await client.createEntity({ partitionKey: "p1", rowKey: "r1", name: "Ada", age: 36, when, big: { value: "9007199254740993", type: "Int64" }, ok: true });
    const e = await client.getEntity("p1", "r1");
    assert.equal(e.name, "Ada");
    assert.equal(e.age, 36);
    assert.equal(e.ok, true);
    assert.equal(e.when.toISOString(), when.toISOString());
    assert.equal(e.big, 9007199254740993n);
    await assert.rejects(client.createEntity({ partitionKey: "p1", rowKey: "r1" }), (err) => err.statusCode === 409);
    await client.updateEntity({ partitionKey: "p1", rowKey: "r1", city: "London" }, "Merge");
    const merged = await client.getEntity("p1", "r1");
    assert.equal(merged.name, "Ada");
    assert.equal(merged.city, "London");
    await client.updateEntity({ partitionKey: "p1", rowKey: "r1", city: "Paris" }, "Replace");
    const replaced = await client.getEntity("p1", "r1");
    assert.equal(replaced.name, undefined);
    assert.equal(replaced.city, "Paris");
    await assert.rejects(client.updateEntity({ partitionKey: "p1", rowKey: "r1", x: 1 }, "Merge", { etag: 'W/"datetime\'2000-01-01T00%3A00%3A00Z\'"' }),
      (err) => err.statusCode === 412);
    await client.upsertEntity({ partitionKey: "p1", rowKey: "r2", n: 2 }, "Replace");
    await client.deleteEntity("p1", "r1");
    await assert.rejects(client.getEntity("p1", "r1"), (err) => err.statusCode === 404);
    await client.deleteTable();
  });

  test("OData queries: filter, select, top and paging", async () => {
    const client = TableClient.fromConnectionString(connectionString, tableName("q"), options);
    await client.createTable();
    for (let i = 0; i < 12; i++) {
      await client.createEntity({ partitionKey: i % 2 === 0 ? "even" : "odd", rowKey: String(i).padStart(2, "0"), n: i, label: `item ${i}` });
    }
    const even = [];
    for await (const e of client.listEntities({ queryOptions: { filter: odata`PartitionKey eq ${"even"} and n ge ${6}` } })) even.push(e.n);
    assert.deepEqual(even, [6, 8, 10]);
    const selected = [];
    for await (const e of client.listEntities({ queryOptions: { filter: "n lt 3", select: ["label"] } })) selected.push(e);
    assert.deepEqual(selected.map((e) => e.label), ["item 0", "item 2", "item 1"]);
    assert.equal(selected[0].n, undefined);
    const pages = [];
    for await (const page of client.listEntities().byPage({ maxPageSize: 5 })) pages.push(page.length);
    assert.deepEqual(pages, [5, 5, 2]);
    const quoted = [];
    await client.createEntity({ partitionKey: "o'brien", rowKey: "x", n: 99 });
    for await (const e of client.listEntities({ queryOptions: { filter: odata`PartitionKey eq ${"o'brien"}` } })) quoted.push(e.n);
    assert.deepEqual(quoted, [99]);
    await client.deleteTable();
  });

  test("transactions commit together or not at all", async () => {
    const client = TableClient.fromConnectionString(connectionString, tableName("tx"), options);
    await client.createTable();
    await client.createEntity({ partitionKey: "p", rowKey: "existing", v: 1 });
    await client.submitTransaction([
      ["create", { partitionKey: "p", rowKey: "a", v: 1 }],
      ["create", { partitionKey: "p", rowKey: "b", v: 2 }],
      ["update", { partitionKey: "p", rowKey: "existing", v: 10 }, "Merge"],
      ["upsert", { partitionKey: "p", rowKey: "c", v: 3 }],
    ]);
    assert.equal((await client.getEntity("p", "existing")).v, 10);
    await assert.rejects(client.submitTransaction([
      ["create", { partitionKey: "p", rowKey: "d", v: 4 }],
      ["create", { partitionKey: "p", rowKey: "a", v: 5 }],
    ]), (err) => err.statusCode === 409);
    await assert.rejects(client.getEntity("p", "d"), (err) => err.statusCode === 404);
    await client.submitTransaction([["delete", { partitionKey: "p", rowKey: "a" }], ["delete", { partitionKey: "p", rowKey: "b" }]]);
    const left = [];
    for await (const e of client.listEntities()) left.push(e.rowKey);
    assert.deepEqual(left, ["c", "existing"]);
    await client.deleteTable();
  });
});
