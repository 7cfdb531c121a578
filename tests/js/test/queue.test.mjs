// Queues and messages with @azure/storage-queue.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { QueueServiceClient } from "@azure/storage-queue";
import { connectionString, name } from "./env.mjs";

const service = QueueServiceClient.fromConnectionString(connectionString);

describe("queues", () => {
  test("create, metadata, list and delete", async () => {
    const q = service.getQueueClient(name("q"));
    await q.create({ metadata: { team: "js" } });
    assert.deepEqual((await q.getProperties()).metadata, { team: "js" });
    await q.setMetadata({ team: "go" });
    assert.deepEqual((await q.getProperties()).metadata, { team: "go" });
    const found = [];
    for await (const item of service.listQueues({ prefix: q.name, includeMetadata: true })) found.push(item);
    assert.equal(found.length, 1);
    assert.deepEqual(found[0].metadata, { team: "go" });
    await q.delete();
    assert.equal(await q.exists(), false);
  });

  test("send, peek, receive, update and delete messages", async () => {
    const q = service.getQueueClient(name("msg"));
    await q.create();
    for (const text of ["first", "second", "third"]) await q.sendMessage(text);
    assert.equal((await q.getProperties()).approximateMessagesCount, 3);
    const peeked = await q.peekMessages({ numberOfMessages: 2 });
    assert.deepEqual(peeked.peekedMessageItems.map((m) => m.messageText), ["first", "second"]);
    const received = await q.receiveMessages({ numberOfMessages: 2, visibilityTimeout: 30 });
    assert.deepEqual(received.receivedMessageItems.map((m) => m.messageText), ["first", "second"]);
    const [one, two] = received.receivedMessageItems;
    assert.equal(one.dequeueCount, 1);
    // Hidden messages are not peeked; the third is.
    assert.deepEqual((await q.peekMessages()).peekedMessageItems.map((m) => m.messageText), ["third"]);
    const updated = await q.updateMessage(one.messageId, one.popReceipt, "first, edited", 0);
    await q.deleteMessage(two.messageId, two.popReceipt);
    await assert.rejects(q.deleteMessage(two.messageId, two.popReceipt), (e) => e.statusCode === 404 && e.code === "MessageNotFound");
    const again = await q.receiveMessages({ numberOfMessages: 5 });
    const texts = again.receivedMessageItems.map((m) => m.messageText).sort();
    assert.deepEqual(texts, ["first, edited", "third"]);
    assert.ok(updated.popReceipt);
    await q.clearMessages();
    assert.equal((await q.peekMessages()).peekedMessageItems.length, 0);
    await q.delete();
  });

  test("message time-to-live and visibility delay", async () => {
    const q = service.getQueueClient(name("ttl"));
    await q.create();
    await q.sendMessage("later", { visibilityTimeout: 60, messageTimeToLive: 120 });
    assert.equal((await q.peekMessages()).peekedMessageItems.length, 0);
    const sent = await q.sendMessage("forever", { messageTimeToLive: -1 });
    assert.equal(sent.expiresOn.getUTCFullYear(), 9999);
    await q.delete();
  });
});
