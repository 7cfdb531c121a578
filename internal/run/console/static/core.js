// Lazuli console, shared helpers: escaping, the console's JSON API, the
// REST relay every action goes through, and the one way each kind of value
// (size, date, ETag) is shown.
"use strict";

const BLOCK_SIZE = 4 << 20; // Put Block and Put Range pieces: 4 MiB
const view = document.getElementById("view");

function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}
function q(params) { return new URLSearchParams(params).toString(); }
// hashOf is the console route of parts, each escaped on its own.
function hashOf(parts) { return "#/" + parts.map(encodeURIComponent).join("/"); }
function link(parts, text) { return `<a href="${hashOf(parts)}">${esc(text)}</a>`; }

// fmtSize shows a byte count in binary units: 512 B, 1.5 KiB, 50.0 MiB.
function fmtSize(n) {
  if (n === undefined || n === null || n === "") return "";
  n = Number(n);
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return i === 0 ? `${n} B` : `${n.toFixed(1)} ${units[i]}`;
}

// fmtDate shows any date the services answer (RFC 1123 or ISO 8601 with
// up to seven fractional digits) as ISO 8601 UTC to the second.
function fmtDate(s) {
  if (!s) return "";
  const d = new Date(String(s).replace(/(\.\d{3})\d+/, "$1"));
  return isNaN(d) ? String(s) : d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

// fmtETag shows an ETag quoted, as the services' ETag header carries it;
// List Blobs answers it bare.
function fmtETag(e) {
  if (!e) return "";
  return e.startsWith('"') || e.startsWith('W/"') ? e : `"${e}"`;
}

// render replaces el's content only when it changed, so that a refresh
// that finds nothing new leaves the rows under the pointer, their focus
// and any selection as they are.
const rendered = new WeakMap();
function render(el, html) {
  if (rendered.get(el) === html) return;
  el.innerHTML = html;
  rendered.set(el, html);
}

function notify(text, isError) {
  const n = document.getElementById("notice");
  n.textContent = text;
  n.className = isError ? "error" : "ok";
}

// perform runs an action, says how it went and refreshes the view; it
// answers whether the action succeeded.
async function perform(done, action) {
  try {
    await action();
    notify(done);
    return true;
  } catch (e) {
    notify(e.message, true);
    return false;
  } finally {
    refresh();
  }
}

async function api(path, options) {
  const r = await fetch(path, options);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

// A browser request that changes something must carry the token of
// /csrf, which only this origin's pages can read: the admin listener
// refuses other sites' pages.
let csrf = null;
async function proof() {
  if (!csrf) csrf = await api("/csrf");
  return {[csrf.header]: csrf.token};
}

// serviceError is the error a service answered: its status, its
// x-ms-error-code and the first line of its message (XML Error or JSON
// odata.error).
function serviceError(status, code, text) {
  let message = "";
  if (text.trim().startsWith("<")) message = xmlText(parseXML(text), "Message");
  else if (text.trim()) {
    try {
      const j = JSON.parse(text);
      message = j["odata.error"] ? j["odata.error"].message.value : j.error;
    } catch (e) {
      message = text;
    }
  }
  const head = [status, code].filter(Boolean).join(" "), first = String(message || "").split("\n")[0];
  return new Error(first ? `${head}: ${first}` : head);
}

// rest runs one REST operation of svc in account through the console's
// relay, which signs it with the account's key: method, path (container,
// blob, queue ... as the REST API names them), query, headers for the
// service and a body. onProgress sees the bytes of the body sent so far.
// It answers {status, header(name), headers (by lower-case name), text},
// or throws the service's error.
async function rest(method, svc, account, path, {query, headers, body, onProgress} = {}) {
  const url = `/api/rest/${method}/${svc}/${encodeURIComponent(account)}/${encodeURIComponent(path)}` + (query ? "?" + q(query) : "");
  const token = await proof();
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open("POST", url);
    for (const [k, v] of Object.entries(token)) x.setRequestHeader(k, v);
    for (const [k, v] of Object.entries(headers || {})) x.setRequestHeader("X-Rest-" + k, v);
    if (onProgress) x.upload.onprogress = ev => onProgress(ev.loaded);
    x.onload = () => {
      const answer = {status: x.status, header: n => x.getResponseHeader(n) || "", headers: headersOf(x), text: x.responseText};
      if (x.status >= 300) reject(serviceError(x.status, answer.header("x-ms-error-code"), x.responseText));
      else resolve(answer);
    };
    x.onerror = () => reject(new Error("the console did not answer"));
    x.send(body ?? null);
  });
}

function headersOf(x) {
  const out = {};
  for (const line of x.getAllResponseHeaders().trim().split(/[\r\n]+/)) {
    const i = line.indexOf(":");
    if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}

function parseXML(text) { return new DOMParser().parseFromString(text, "application/xml"); }
function xmlText(node, tag) { const e = node.querySelector(tag); return e ? e.textContent : ""; }

// pairsOf reads "key=value" lines; pairsText writes them.
function pairsOf(text) {
  const out = {};
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const i = line.indexOf("=");
    out[(i < 0 ? line : line.slice(0, i)).trim()] = i < 0 ? "" : line.slice(i + 1).trim();
  }
  return out;
}
function pairsText(o) { return Object.entries(o).map(([k, v]) => `${k}=${v}`).join("\n"); }

// blockId is the id of the i-th block of an upload: all of one length,
// as Put Block List asks.
function blockId(i) { return btoa("block-" + String(i).padStart(6, "0")); }

// progressRow adds an upload's progress bar to #uploads and answers its
// update: bytes sent so far, an error, or that the upload is committed.
// Only the commit (Put Block List, or the last Put Range) makes 100%.
function progressRow(name, size) {
  const row = document.createElement("div");
  row.className = "upload";
  row.innerHTML = `<span class="mono">${esc(name)}</span> <progress max="100" value="0"></progress> <span class="pct">0%</span>`;
  document.getElementById("uploads").appendChild(row);
  return (done, failed, finished) => {
    const pct = finished ? 100 : Math.min(99, Math.floor(done * 100 / (size || 1)));
    row.querySelector("progress").value = pct;
    row.querySelector(".pct").textContent = failed ? "failed: " + failed : `${fmtSize(done)} of ${fmtSize(size)} (${pct}%)${finished ? " " + finished : ""}`;
    row.classList.toggle("error", !!failed);
    row.classList.toggle("done", !!finished);
  };
}

// dropTarget makes el take dropped files, as the file picker does.
function dropTarget(el, take) {
  el.addEventListener("dragover", ev => { ev.preventDefault(); el.classList.add("over"); });
  el.addEventListener("dragleave", () => el.classList.remove("over"));
  el.addEventListener("drop", ev => { ev.preventDefault(); el.classList.remove("over"); take([...ev.dataTransfer.files]); });
}

// pager keeps the markers of a listing's pages: the service's
// NextMarker of each page read, so "previous" goes back without a
// search.
function newPager() { return {markers: [""], index: 0}; }
// newListing is a listing page's state: its name filter, its pager and
// the NextMarker of the page shown.
function newListing() { return {filter: "", pager: newPager(), next: ""}; }
function pagerHTML(pager, next) {
  return `<div class="pager">page ${pager.index + 1}
    <button data-page="-1" ${pager.index ? "" : "disabled"}>previous page</button>
    <button data-page="1" ${next ? "" : "disabled"}>next page</button></div>`;
}
function turnPage(pager, step, next) {
  if (step > 0 && next) { pager.markers[pager.index + 1] = next; pager.index++; }
  if (step < 0 && pager.index > 0) pager.index--;
}

// listingToolbar is the name filter, file picker and drop zone of a
// container's or share's page, with the places listings fill.
function listingToolbar() {
  return `<div class="toolbar">
      <form id="name-filter"><input name="prefix" placeholder="name starts with" size="24"><button>Filter</button></form>
      <label class="picker">Upload files <input type="file" id="upload-input" multiple></label>
      <span id="drop" class="drop">or drop files here</span>
    </div>
    <div id="uploads"></div><div id="rows"></div><div id="pager"></div>`;
}

// bindListing makes the toolbar work: a filter starts again at page one,
// picked and dropped files go to upload, the pager turns pages.
function bindListing(state, upload) {
  document.getElementById("name-filter").addEventListener("submit", ev => {
    ev.preventDefault();
    state.filter = ev.target.elements.prefix.value;
    state.pager = newPager();
    refresh();
  });
  document.getElementById("upload-input").addEventListener("change", ev => { upload([...ev.target.files]); ev.target.value = ""; });
  dropTarget(document.getElementById("drop"), upload);
  dropTarget(document.getElementById("rows"), upload);
  bindPager(state);
}

// bindPager makes #pager's buttons turn the pages of state's listing.
function bindPager(state) {
  document.getElementById("pager").addEventListener("click", ev => {
    if (!ev.target.dataset.page) return;
    turnPage(state.pager, Number(ev.target.dataset.page), state.next);
    refresh();
  });
}

// showPage reads a page's nextMarker into state and shows the pager.
function showPage(state, nextMarker) {
  state.next = nextMarker;
  render(document.getElementById("pager"), pagerHTML(state.pager, state.next));
}
