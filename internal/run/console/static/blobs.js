// Lazuli console, a container's page: its blobs as folders (List Blobs
// with delimiter '/'), a page at a time with the service's NextMarker, a
// name filter, and uploads in 4 MiB blocks (Put Block, Put Block List).
"use strict";

// folderOf is the blob name prefix a container route shows: "" or "a/b/".
function folderOf(r) { return r.rest ? r.rest + "/" : ""; }

const containerView = {
  state: null,
  async mount(r) {
    this.state = newListing();
    view.innerHTML = `<h2>Container ${esc(r.name)} <button id="container-sas">SAS URL…</button></h2>
      <div class="with-tree"><nav id="tree" hidden></nav><div class="listing">${listingToolbar()}</div></div>
      <section id="props" hidden></section>`;
    mountTree(r);
    const folder = folderOf(r);
    bindListing(this.state, files => uploadBlobs(r.account, r.name, folder, files));
    document.getElementById("rows").addEventListener("click", ev => {
      if (ev.target.dataset.props) openBlobProps(r.account, r.name, ev.target.dataset.props);
    });
    document.getElementById("container-sas").addEventListener("click", () => openSAS(r.account, r.name, ""));
  },
  async update(r) {
    await updateTree(r);
    const s = this.state, folder = folderOf(r);
    const data = await api("/api/blobs?" + q({account: r.account, container: r.name, prefix: folder + s.filter,
      marker: s.pager.markers[s.pager.index]}));
    showPage(s, data.nextMarker);
    if (dirTree.hns) foldDirectories(data);
    const rows = document.getElementById("rows");
    if (!data.blobs.length && !data.prefixes.length) { render(rows, `<p class="empty">no blobs</p>`); return; }
    render(rows, `<table id="blobs"><tr><th>Name</th><th>Snapshot / version</th><th>Type</th><th>Size</th>
      <th>ETag</th><th>Last modified</th><th>Lease</th><th>Tags</th><th>Metadata</th><th></th></tr>` +
      data.prefixes.map(p => `<tr class="folder"><td colspan="10">${link(["c", r.account, r.name, ...p.slice(0, -1).split("/")], p.slice(folder.length))}</td></tr>`).join("") +
      data.blobs.map(b => blobRow(r, b, folder)).join("") + "</table>");
  },
};

// foldDirectories lists an account's directory blobs (hdi_isfolder) with
// the folders, once each, rather than as blobs: with a hierarchical
// namespace they are the directories the tree shows.
function foldDirectories(data) {
  const dirs = data.blobs.filter(isFolderBlob).map(b => b.name + "/");
  data.blobs = data.blobs.filter(b => !isFolderBlob(b));
  data.prefixes = [...new Set([...data.prefixes, ...dirs])].sort();
}

function blobRow(r, b, folder) {
  const p = b.properties;
  return `<tr class="${b.deleted ? "deleted" : ""}" data-blob="${esc(b.name)}">
    <td class="mono">${esc(b.name.slice(folder.length))}</td>
    <td class="mono">${b.snapshot ? esc(b.snapshot) + " (snapshot)" : ""}${b.versionId ? esc(b.versionId) + (b.isCurrentVersion ? " (current)" : "") : ""}</td>
    <td>${esc(p.blobType)}${p.accessTier ? " " + esc(p.accessTier) : ""}</td><td>${fmtSize(p.length)}</td>
    <td class="mono">${esc(fmtETag(p.etag))}</td><td>${fmtDate(p.lastModified)}${p.expiryTime ? "<br>expires " + fmtDate(p.expiryTime) : ""}${p.deletedTime ? "<br>deleted " + fmtDate(p.deletedTime) : ""}</td>
    <td class="lease-${esc(p.leaseState)}">${esc(p.leaseState)} ${esc(p.leaseDuration || "")}</td>
    <td>${b.tags.map(t => `<span class="tag">${esc(t.key)}=${esc(t.value)}</span>`).join("")}</td>
    <td class="mono">${Object.entries(b.metadata || {}).map(([k, v]) => esc(k + "=" + v)).join("<br>")}</td>
    <td>${blobActions(r, b)}</td></tr>`;
}

function blobActions(r, b) {
  const sel = {account: r.account, container: r.name, blob: b.name};
  if (b.snapshot) sel.snapshot = b.snapshot;
  if (b.versionId && !b.isCurrentVersion) sel.versionid = b.versionId;
  const s = esc(q(sel)), current = !b.deleted && !sel.snapshot && !sel.versionid;
  let html = b.deleted ? "" : `<a href="/api/download?${s}">download</a> `;
  if (current) html += `<button data-props="${esc(b.name)}">properties</button> `;
  if (!b.deleted && b.properties.leaseState === "leased") html += `<button data-post="/api/break-lease?${s}">break lease</button> `;
  if (!b.deleted) html += `<button data-post="/api/delete-blob?${s}" data-confirm="Delete ${esc(b.name)}?">delete</button>`;
  return html;
}

// uploadBlobs uploads files one after another into folder.
async function uploadBlobs(account, container, folder, files) {
  for (const f of files) await uploadBlob(account, container, folder + f.name, f);
  refresh();
}

// uploadBlob stores file as a block blob: Put Block for each 4 MiB, then
// Put Block List with the file's type (Azure REST, "Put Block List").
async function uploadBlob(account, container, name, file) {
  const show = progressRow(name, file.size), path = container + "/" + name, ids = [];
  try {
    for (let off = 0; off < file.size; off += BLOCK_SIZE) {
      const id = blockId(ids.length);
      await rest("PUT", "blob", account, path, {query: {comp: "block", blockid: id}, body: file.slice(off, off + BLOCK_SIZE),
        onProgress: n => show(off + n)});
      ids.push(id);
    }
    const list = `<?xml version="1.0" encoding="utf-8"?><BlockList>${ids.map(id => `<Latest>${id}</Latest>`).join("")}</BlockList>`;
    await rest("PUT", "blob", account, path, {query: {comp: "blocklist"}, body: list,
      headers: {"Content-Type": "application/xml", "x-ms-blob-content-type": file.type || "application/octet-stream"}});
    show(file.size, "", "uploaded");
  } catch (e) {
    show(0, e.message);
  }
}
