// Lazuli console: hash routes, each rendered from /api/ and refreshed every
// two seconds while the page is open.
"use strict";

const view = document.getElementById("view");
const crumbs = document.getElementById("crumbs");
const live = document.getElementById("live");
const message = document.getElementById("message");
let filter = "";
let renderedRoute = "";

function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}
function q(params) { return new URLSearchParams(params).toString(); }
function link(hash, text) { return `<a href="#${hash.split("/").map(encodeURIComponent).join("/")}">${esc(text)}</a>`; }

async function api(path, options) {
  const r = await fetch(path, options);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(p => p !== "").map(decodeURIComponent);
  return {kind: parts[0] || "", account: parts[1], name: parts[2], rest: parts.slice(3).join("/")};
}

function setCrumbs(r) {
  let html = link("/", "accounts");
  if (r.account) html += " / " + esc(r.account);
  if (r.name) html += " / " + esc({c: "container", q: "queue", t: "table", s: "share"}[r.kind] + " " + r.name);
  if (r.rest) html += " / " + esc(r.rest);
  crumbs.innerHTML = html;
}

function list(kind, account, names, label) {
  if (!names.length) return `<p class="empty">none</p>`;
  return "<ul>" + names.map(n => `<li>${link(`/${kind}/${account}/${n.name ?? n}`, n.name ?? n)}${label ? label(n) : ""}</li>`).join("") + "</ul>";
}

async function renderOverview() {
  const data = await api("/api/overview");
  view.innerHTML = data.accounts.map(a => `
    <div class="account" data-account="${esc(a.name)}">
      <h2>${esc(a.name)}</h2>
      ${(a.errors || []).map(e => `<p class="error">${esc(e)}</p>`).join("")}
      <div class="kinds">
        <div><h3>Containers (${a.containers.length})</h3>${list("c", a.name, a.containers)}</div>
        <div><h3>Queues (${a.queues.length})</h3>${list("q", a.name, a.queues, qv => ` <span class="mono">${qv.messages} msg</span>`)}</div>
        <div><h3>Tables (${a.tables.length})</h3>${list("t", a.name, a.tables)}</div>
        <div><h3>Shares (${a.shares.length})</h3>${list("s", a.name, a.shares)}</div>
      </div>
    </div>`).join("");
}

function blobActions(r, b) {
  const sel = {account: r.account, container: r.name, blob: b.name};
  if (b.snapshot) sel.snapshot = b.snapshot;
  if (b.versionId && !b.isCurrentVersion) sel.versionid = b.versionId;
  const s = esc(q(sel));
  let html = b.deleted ? "" : `<a href="/api/download?${s}">download</a> `;
  if (!b.deleted && b.properties.leaseState === "leased") html += `<button data-post="/api/break-lease?${s}">break lease</button> `;
  if (!b.deleted) html += `<button data-post="/api/delete-blob?${s}" data-confirm="Delete ${esc(b.name)}?">delete</button>`;
  return html;
}

async function renderContainer(r) {
  const data = await api("/api/blobs?" + q({account: r.account, container: r.name}));
  if (!data.blobs.length) { view.innerHTML = `<h2>Container ${esc(r.name)}</h2><p class="empty">no blobs</p>`; return; }
  view.innerHTML = `<h2>Container ${esc(r.name)}</h2><table id="blobs"><tr><th>Name</th><th>Snapshot / version</th><th>Type</th><th>Size</th>
    <th>ETag</th><th>Last modified</th><th>Lease</th><th>Tags</th><th>Metadata</th><th></th></tr>` +
    data.blobs.map(b => `<tr class="${b.deleted ? "deleted" : ""}" data-blob="${esc(b.name)}">
      <td class="mono">${esc(b.name)}</td>
      <td class="mono">${esc(b.snapshot || "")}${b.versionId ? esc(b.versionId) + (b.isCurrentVersion ? " (current)" : "") : ""}</td>
      <td>${esc(b.properties.blobType)}</td><td>${b.properties.length}</td>
      <td class="mono">${esc(b.properties.etag)}</td><td>${esc(b.properties.lastModified)}${b.properties.expiryTime ? "<br>expires " + esc(b.properties.expiryTime) : ""}${b.properties.deletedTime ? "<br>deleted " + esc(b.properties.deletedTime) : ""}</td>
      <td class="lease-${esc(b.properties.leaseState)}">${esc(b.properties.leaseState)} ${esc(b.properties.leaseDuration || "")}</td>
      <td>${b.tags.map(t => `<span class="tag">${esc(t.key)}=${esc(t.value)}</span>`).join("")}</td>
      <td class="mono">${Object.entries(b.metadata || {}).map(([k, v]) => esc(k + "=" + v)).join("<br>")}</td>
      <td>${blobActions(r, b)}</td></tr>`).join("") + "</table>";
}

async function renderQueue(r) {
  const data = await api("/api/messages?" + q({account: r.account, queue: r.name}));
  const clear = `<button data-post="/api/clear-queue?${esc(q({account: r.account, queue: r.name}))}" data-confirm="Clear every message?">clear queue</button>`;
  if (!data.messages.length) { view.innerHTML = `<h2>Queue ${esc(r.name)}</h2><p class="empty">no messages</p>`; return; }
  view.innerHTML = `<h2>Queue ${esc(r.name)} ${clear}</h2><table id="messages"><tr><th>Message id</th><th>Text</th><th>Visible</th>
    <th>Next visible</th><th>Dequeue count</th><th>Inserted</th><th>Expires</th></tr>` +
    data.messages.map(m => `<tr class="${m.visible ? "" : "invisible"}"><td class="mono">${esc(m.id)}</td><td class="mono">${esc(m.text)}</td>
      <td>${m.visible ? "yes" : "no"}</td><td>${esc(m.nextVisible)}</td><td>${m.dequeueCount}</td>
      <td>${esc(m.inserted)}</td><td>${esc(m.expires || "never")}</td></tr>`).join("") + "</table>";
}

async function renderTable(r) {
  const data = await api("/api/entities?" + q({account: r.account, table: r.name, filter}));
  const cols = [];
  for (const e of data.entities) for (const k of Object.keys(e)) if (!cols.includes(k) && !k.endsWith("@odata.type") && k !== "odata.metadata") cols.push(k);
  const order = ["PartitionKey", "RowKey", "Timestamp", "odata.etag"];
  cols.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  const box = `<form id="filter-form"><input name="filter" size="60" placeholder="PartitionKey eq 'p1' and Price gt 10" value="${esc(filter)}">
    <button>Filter</button></form>`;
  const rows = data.entities.length ? `<table id="entities"><tr>${cols.map(c => `<th>${esc(c === "odata.etag" ? "ETag" : c)}</th>`).join("")}</tr>` +
    data.entities.map(e => "<tr>" + cols.map(c => `<td class="mono">${esc(typeof e[c] === "object" ? JSON.stringify(e[c]) : e[c])}</td>`).join("") + "</tr>").join("") + "</table>"
    : `<p class="empty">no entities</p>`;
  if (renderedRoute === location.hash && document.getElementById("filter-form")) {
    document.getElementById("entity-rows").innerHTML = rows;
    return;
  }
  view.innerHTML = `<h2>Table ${esc(r.name)}</h2>${box}<div id="entity-rows">${rows}</div>`;
  document.getElementById("filter-form").addEventListener("submit", ev => {
    ev.preventDefault();
    filter = new FormData(ev.target).get("filter");
    refresh();
  });
}

async function renderShare(r) {
  const data = await api("/api/files?" + q({account: r.account, share: r.name, path: r.rest}));
  const up = r.rest ? `<p>${link(`/s/${r.account}/${r.name}/${r.rest.split("/").slice(0, -1).join("/")}`, "..")}</p>` : "";
  if (!data.entries.length) { view.innerHTML = `<h2>Share ${esc(r.name)}</h2>${up}<p class="empty">empty directory</p>`; return; }
  view.innerHTML = `<h2>Share ${esc(r.name)} /${esc(r.rest)}</h2>${up}<table id="files"><tr><th>Name</th><th>Size</th><th>ETag</th><th>Last modified</th><th>Lease</th><th>Open handles</th></tr>` +
    data.entries.map(e => `<tr><td class="mono">${e.directory ? link(`/s/${r.account}/${r.name}/${r.rest ? r.rest + "/" : ""}${e.name}`, e.name + "/") : esc(e.name)}</td>
      <td>${e.directory ? "" : e.length}</td><td class="mono">${esc(e.etag)}</td><td>${esc(e.lastModified)}</td>
      <td>${esc(e.lease || "")}</td><td>${e.handles}</td></tr>`).join("") + "</table>";
}

async function renderSide() {
  const clock = await api("/clock");
  document.getElementById("clock-now").textContent = clock.now;
  const f = await api("/faults");
  document.getElementById("faults").innerHTML = f.rules.length ? "<ul>" + f.rules.map(r =>
    `<li class="mono">#${r.id} ${esc(JSON.stringify(Object.fromEntries(Object.entries(r).filter(([k]) => !["id", "seen", "injected"].includes(k)))))}
     seen ${r.seen}, injected ${r.injected} <button data-delete="/faults/${r.id}">remove</button></li>`).join("") + "</ul>" : `<p class="empty">none</p>`;
}

let busy = false;
async function refresh() {
  if (busy) return;
  busy = true;
  const r = route();
  setCrumbs(r);
  try {
    switch (r.kind) {
      case "c": await renderContainer(r); break;
      case "q": await renderQueue(r); break;
      case "t": await renderTable(r); break;
      case "s": await renderShare(r); break;
      default: await renderOverview();
    }
    await renderSide();
    renderedRoute = location.hash;
    live.classList.remove("stale");
    live.textContent = "live " + new Date().toLocaleTimeString();
  } catch (e) {
    live.classList.add("stale");
    view.innerHTML = `<p class="error">${esc(e.message)}</p>`;
  } finally {
    busy = false;
  }
}

// A browser request that changes something must carry the token of
// /csrf, which only this origin's pages can read: the admin listener
// refuses other sites' pages.
let csrf = null;
async function proof() {
  if (!csrf) csrf = await api("/csrf");
  return {[csrf.header]: csrf.token};
}

async function act(path, method) {
  try {
    await api(path, {method, headers: await proof()});
    message.textContent = "done";
  } catch (e) {
    message.textContent = e.message;
  }
  refresh();
}

document.addEventListener("click", ev => {
  const t = ev.target;
  if (t.dataset.post && (!t.dataset.confirm || confirm(t.dataset.confirm))) act(t.dataset.post, "POST");
  if (t.dataset.delete) act(t.dataset.delete, "DELETE");
  if (t.dataset.advance) act("/clock/advance?" + q({by: t.dataset.advance}), "POST");
  if (t.id === "release") act("/clock/release", "POST");
  if (t.id === "clear-faults") act("/faults", "DELETE");
});
document.getElementById("advance-form").addEventListener("submit", ev => {
  ev.preventDefault();
  act("/clock/advance?" + q({by: new FormData(ev.target).get("by")}), "POST");
});
document.getElementById("pin-form").addEventListener("submit", ev => {
  ev.preventDefault();
  act("/clock/pin?" + q({at: new FormData(ev.target).get("at")}), "POST");
});
document.getElementById("fault-form").addEventListener("submit", async ev => {
  ev.preventDefault();
  try {
    const headers = {...await proof(), "Content-Type": "application/json"};
    await api("/faults", {method: "POST", headers, body: new FormData(ev.target).get("rule")});
    message.textContent = "rule added";
  } catch (e) {
    message.textContent = e.message;
  }
  refresh();
});
window.addEventListener("hashchange", () => { filter = ""; renderedRoute = ""; refresh(); });
refresh();
setInterval(refresh, 2000);
