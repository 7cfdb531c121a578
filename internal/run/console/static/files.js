// Lazuli console, a share's page: a directory's files and directories (List
// Directories and Files), a page at a time with the service's NextMarker,
// a name filter, uploads (Create File, then Put Range per 4 MiB), and
// directories created and entries deleted.
"use strict";

const shareView = {
  state: null,
  async mount(r) {
    this.state = newListing();
    const up = r.rest ? `<p>${link(["s", r.account, r.name, ...r.rest.split("/").slice(0, -1)], "..")}</p>` : "";
    view.innerHTML = `<h2>Share ${esc(r.name)} /${esc(r.rest)}</h2>${up}
      <form id="mkdir"><input name="name" placeholder="new directory" required> <button>Create directory</button></form>${listingToolbar()}`;
    const dir = r.name + (r.rest ? "/" + r.rest : "");
    bindListing(this.state, async files => {
      for (const f of files) await uploadFile(r.account, dir + "/" + f.name, f);
      refresh();
    });
    document.getElementById("mkdir").addEventListener("submit", ev => {
      ev.preventDefault();
      const name = ev.target.elements.name.value;
      perform(`created directory ${name}`, () => rest("PUT", "file", r.account, dir + "/" + name, {query: {restype: "directory"}}))
        .then(ok => { if (ok) ev.target.reset(); });
    });
    // Delete File, or Delete Directory, which the service refuses while
    // the directory holds anything (409 DirectoryNotEmpty).
    document.getElementById("rows").addEventListener("click", ev => {
      const name = ev.target.dataset.deleteEntry;
      if (name === undefined || !confirm(`Delete ${name}?`)) return;
      const query = ev.target.dataset.directory ? {restype: "directory"} : undefined;
      perform(`deleted ${name}`, () => rest("DELETE", "file", r.account, dir + "/" + name, {query}));
    });
  },
  async update(r) {
    const s = this.state;
    const data = await api("/api/files?" + q({account: r.account, share: r.name, path: r.rest, prefix: s.filter,
      marker: s.pager.markers[s.pager.index]}));
    s.next = data.nextMarker;
    render(document.getElementById("pager"), pagerHTML(s.pager, s.next));
    const rows = document.getElementById("rows");
    if (!data.entries.length) { render(rows, `<p class="empty">empty directory</p>`); return; }
    const dir = r.rest ? r.rest.split("/") : [];
    render(rows, `<table id="files"><tr><th>Name</th><th>Size</th><th>ETag</th><th>Last modified</th><th>Lease</th><th>Open handles</th><th></th></tr>` +
      data.entries.map(e => `<tr><td class="mono">${e.directory ? link(["s", r.account, r.name, ...dir, e.name], e.name + "/") : esc(e.name)}</td>
        <td>${e.directory ? "" : fmtSize(e.length)}</td><td class="mono">${esc(fmtETag(e.etag))}</td><td>${fmtDate(e.lastModified)}</td>
        <td>${esc(e.lease || "")}</td><td>${e.handles}</td>
        <td><button data-delete-entry="${esc(e.name)}" ${e.directory ? 'data-directory="1"' : ""}>delete</button></td></tr>`).join("") + "</table>");
  },
};

// uploadFile creates a file of the upload's size and writes it with Put
// Range, 4 MiB at a time (Azure REST, "Put Range": at most 4 MiB each).
async function uploadFile(account, path, file) {
  const show = progressRow(path, file.size);
  try {
    await rest("PUT", "file", account, path, {headers: {"x-ms-type": "file", "x-ms-content-length": String(file.size),
      "x-ms-content-type": file.type || "application/octet-stream"}});
    for (let off = 0; off < file.size; off += BLOCK_SIZE) {
      const end = Math.min(off + BLOCK_SIZE, file.size) - 1;
      await rest("PUT", "file", account, path, {query: {comp: "range"}, headers: {"x-ms-range": `bytes=${off}-${end}`, "x-ms-write": "update"},
        body: file.slice(off, end + 1), onProgress: n => show(off + n)});
    }
    show(file.size, "", "uploaded");
  } catch (e) {
    show(0, e.message);
  }
}
