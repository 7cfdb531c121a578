// Lazuli console, a queue's page: every message, invisible ones included
// (from the store: no REST operation lists them), a page at a time, and
// the client's operations on it: Put Message, Peek Messages, Get
// Messages, Delete Message (with the pop receipt Get Messages gave) and
// Clear Messages.
"use strict";

const queueView = {
  received: [], state: null,
  async mount(r) {
    this.received = [];
    this.state = newListing();
    const clear = `<button data-post="/api/clear-queue?${esc(q({account: r.account, queue: r.name}))}" data-confirm="Clear every message?">clear queue</button>`;
    view.innerHTML = `<h2>Queue ${esc(r.name)} ${clear}</h2>
      <div class="toolbar">
        <form id="put-form"><input name="text" size="30" placeholder="message text" required>
          <label>visible after <input name="visibilitytimeout" size="4" placeholder="0"> s</label>
          <label>time to live <input name="messagettl" size="6" placeholder="7 days"> s</label> <button>Add message</button></form>
        <button id="peek">Peek</button> <button id="dequeue">Get (dequeue)</button>
        <label>invisible for <input id="dequeue-timeout" size="4" value="30"> s</label>
      </div>
      <div id="received"></div><h3>Every message, invisible ones included</h3><div id="rows"></div><div id="pager"></div>`;
    bindPager(this.state);
    const queue = r.name + "/messages";
    document.getElementById("put-form").addEventListener("submit", ev => {
      ev.preventDefault();
      const f = ev.target.elements, query = {};
      for (const k of ["visibilitytimeout", "messagettl"]) if (f[k].value) query[k] = f[k].value;
      const body = `<?xml version="1.0" encoding="utf-8"?><QueueMessage><MessageText>${esc(f.text.value)}</MessageText></QueueMessage>`;
      perform("message added", () => rest("POST", "queue", r.account, queue, {query, body, headers: {"Content-Type": "application/xml"}}))
        .then(ok => { if (ok) ev.target.reset(); });
    });
    const receive = (query, what) => perform(what, async () => {
      const got = await rest("GET", "queue", r.account, queue, {query});
      this.received = [...parseXML(got.text).querySelectorAll("QueueMessage")].map(m => ({id: xmlText(m, "MessageId"),
        text: xmlText(m, "MessageText"), popReceipt: xmlText(m, "PopReceipt"), dequeueCount: xmlText(m, "DequeueCount"),
        nextVisible: xmlText(m, "TimeNextVisible"), inserted: xmlText(m, "InsertionTime"), expires: xmlText(m, "ExpirationTime")}));
      this.showReceived(r, query.peekonly ? "Peeked" : "Got");
    });
    document.getElementById("peek").addEventListener("click", () => receive({peekonly: "true", numofmessages: "32"}, "visible messages peeked"));
    document.getElementById("dequeue").addEventListener("click", () =>
      receive({numofmessages: "1", visibilitytimeout: document.getElementById("dequeue-timeout").value}, "message got, invisible until deleted or its time runs out"));
    document.getElementById("received").addEventListener("click", ev => {
      const m = this.received.find(x => x.id === ev.target.dataset.deleteMessage);
      if (!m) return;
      perform("message deleted", async () => {
        await rest("DELETE", "queue", r.account, `${queue}/${m.id}`, {query: {popreceipt: m.popReceipt}});
        this.received = this.received.filter(x => x !== m);
        this.showReceived(r, "Got");
      });
    });
  },
  showReceived(r, how) {
    const box = document.getElementById("received");
    box.innerHTML = `<h3>${how} ${this.received.length} message(s)</h3>` + (this.received.length ? `<table id="received-messages">
      <tr><th>Message id</th><th>Text</th><th>Dequeue count</th><th>Next visible</th><th>Inserted</th><th>Expires</th><th></th></tr>` +
      this.received.map(m => `<tr><td class="mono">${esc(m.id)}</td><td class="mono">${esc(m.text)}</td><td>${esc(m.dequeueCount)}</td>
        <td>${fmtDate(m.nextVisible)}</td><td>${fmtDate(m.inserted)}</td><td>${fmtDate(m.expires)}</td>
        <td>${m.popReceipt ? `<button data-delete-message="${esc(m.id)}">delete</button>` : ""}</td></tr>`).join("") + "</table>" : "");
  },
  async update(r) {
    const s = this.state;
    const data = await api("/api/messages?" + q({account: r.account, queue: r.name, marker: s.pager.markers[s.pager.index]}));
    showPage(s, data.nextMarker);
    const rows = document.getElementById("rows");
    if (!data.messages.length) { render(rows, `<p class="empty">no messages</p>`); return; }
    render(rows, `<table id="messages"><tr><th>Message id</th><th>Text</th><th>Visible</th>
      <th>Next visible</th><th>Dequeue count</th><th>Inserted</th><th>Expires</th></tr>` +
      data.messages.map(m => `<tr class="${m.visible ? "" : "invisible"}"><td class="mono">${esc(m.id)}</td><td class="mono">${esc(m.text)}</td>
        <td>${m.visible ? "yes" : "no"}</td><td>${fmtDate(m.nextVisible)}</td><td>${m.dequeueCount}</td>
        <td>${fmtDate(m.inserted)}</td><td>${m.expires ? fmtDate(m.expires) : "never"}</td></tr>`).join("") + "</table>");
  },
};
