// Lazuli console, a blob's properties panel: content headers, metadata,
// tags, tier, lease, snapshots and versions, each edited through its own
// operation (Set Blob Properties, Set Blob Metadata, Set Blob Tags, Set
// Blob Tier), and the service SAS dialog of a container or blob.
"use strict";

// contentHeaders are the content headers Set Blob Properties sets, by the
// header Get Blob Properties answers them in (which the relay passes on as
// X-Service-...). Set Blob Properties clears any it is not given, so the
// form sends them all.
const contentHeaders = {
  "content-type": "x-ms-blob-content-type", "content-encoding": "x-ms-blob-content-encoding",
  "content-language": "x-ms-blob-content-language", "content-disposition": "x-ms-blob-content-disposition",
  "cache-control": "x-ms-blob-cache-control",
};
const tiers = ["Hot", "Cool", "Cold", "Archive"];

function propsPanel() {
  const panel = document.getElementById("props");
  panel.hidden = false;
  return panel;
}

async function openBlobProps(account, container, name) {
  const panel = propsPanel(), path = container + "/" + name;
  try {
    const head = (await rest("HEAD", "blob", account, path)).headers;
    const tags = {};
    parseXML((await rest("GET", "blob", account, path, {query: {comp: "tags"}})).text)
      .querySelectorAll("Tag").forEach(t => { tags[xmlText(t, "Key")] = xmlText(t, "Value"); });
    const listed = parseXML((await rest("GET", "blob", account, container, {query: {restype: "container", comp: "list",
      prefix: name, include: "snapshots,versions"}})).text);
    const history = [...listed.querySelectorAll("Blob")].filter(b => xmlText(b, "Name") === name && (xmlText(b, "Snapshot") || xmlText(b, "VersionId")));
    const metadata = {};
    for (const [k, v] of Object.entries(head)) if (k.startsWith("x-ms-meta-")) metadata[k.slice(10)] = v;
    panel.innerHTML = blobPropsHTML(name, head, metadata, tags, history);
    bindBlobProps(panel, account, container, name, head);
  } catch (e) {
    panel.innerHTML = `<p class="error">${esc(e.message)}</p>`;
  }
}

function blobPropsHTML(name, head, metadata, tags, history) {
  const facts = [["Type", head["x-ms-blob-type"]], ["Size", fmtSize(head["x-service-content-length"])], ["ETag", head["etag"]],
    ["Last modified", fmtDate(head["last-modified"])], ["Created", fmtDate(head["x-ms-creation-time"])],
    ["Tier", head["x-ms-access-tier"]], ["Lease", [head["x-ms-lease-state"], head["x-ms-lease-status"], head["x-ms-lease-duration"]].filter(Boolean).join(", ")],
    ["Content-MD5", head["content-md5"]], ["Version", head["x-ms-version-id"]]];
  return `<h3>Properties of <span class="mono">${esc(name)}</span> <button id="props-close">close</button></h3>
    <table class="kv">${facts.filter(f => f[1]).map(([k, v]) => `<tr><th>${k}</th><td class="mono">${esc(v)}</td></tr>`).join("")}</table>
    <form id="props-headers"><h4>Content headers</h4>${Object.keys(contentHeaders).map(h =>
      `<label>${h} <input name="${h}" value="${esc(head["x-service-" + h] || "")}"></label>`).join("")}<button>Save content headers</button></form>
    <form id="props-metadata"><h4>Metadata (name=value per line)</h4><textarea name="pairs" rows="3">${esc(pairsText(metadata))}</textarea>
      <button>Save metadata</button></form>
    <form id="props-tags"><h4>Tags (key=value per line)</h4><textarea name="pairs" rows="3">${esc(pairsText(tags))}</textarea>
      <button>Save tags</button></form>
    <form id="props-tier"><h4>Access tier</h4><select name="tier">${tiers.map(t =>
      `<option ${t === head["x-ms-access-tier"] ? "selected" : ""}>${t}</option>`).join("")}</select> <button>Set tier</button></form>
    <button id="props-sas">SAS URL…</button>
    <h4>Snapshots and versions (${history.length})</h4>${history.length ? `<table id="history"><tr><th>Snapshot</th><th>Version</th><th>Size</th><th>Last modified</th></tr>` +
      history.map(b => `<tr><td class="mono">${esc(xmlText(b, "Snapshot"))}</td><td class="mono">${esc(xmlText(b, "VersionId"))}${xmlText(b, "IsCurrentVersion") === "true" ? " (current)" : ""}</td>
        <td>${fmtSize(xmlText(b, "Content-Length"))}</td><td>${fmtDate(xmlText(b, "Last-Modified"))}</td></tr>`).join("") + "</table>" : `<p class="empty">none</p>`}`;
}

// bindBlobProps sends each form with the ETag the panel read (If-Match),
// so that a change made meanwhile is the service's 412, not overwritten.
function bindBlobProps(panel, account, container, name, head) {
  const path = container + "/" + name, cond = {"If-Match": head["etag"]};
  const save = (form, what, call) => panel.querySelector(form).addEventListener("submit", async ev => {
    ev.preventDefault();
    if (await perform(`${what} of ${name} saved`, () => call(ev.target.elements))) openBlobProps(account, container, name);
  });
  save("#props-headers", "content headers", f => {
    const headers = {...cond};
    for (const [h, set] of Object.entries(contentHeaders)) headers[set] = f[h].value;
    if (head["content-md5"]) headers["x-ms-blob-content-md5"] = head["content-md5"];
    return rest("PUT", "blob", account, path, {query: {comp: "properties"}, headers});
  });
  save("#props-metadata", "metadata", f => {
    const headers = {...cond};
    for (const [k, v] of Object.entries(pairsOf(f.pairs.value))) headers["x-ms-meta-" + k] = v;
    return rest("PUT", "blob", account, path, {query: {comp: "metadata"}, headers});
  });
  save("#props-tags", "tags", f => {
    const set = Object.entries(pairsOf(f.pairs.value)).map(([k, v]) => `<Tag><Key>${esc(k)}</Key><Value>${esc(v)}</Value></Tag>`).join("");
    return rest("PUT", "blob", account, path, {query: {comp: "tags"}, headers: {"Content-Type": "application/xml"},
      body: `<?xml version="1.0" encoding="utf-8"?><Tags><TagSet>${set}</TagSet></Tags>`});
  });
  save("#props-tier", "tier", f => rest("PUT", "blob", account, path, {query: {comp: "tier"}, headers: {"x-ms-access-tier": f.tier.value}}));
  panel.querySelector("#props-close").addEventListener("click", () => { panel.hidden = true; });
  panel.querySelector("#props-sas").addEventListener("click", () => openSAS(account, container, name));
}

// openSAS signs a service SAS for a container (blob "") or a blob with
// the permissions and expiry chosen, through the console's /api/sas.
function openSAS(account, container, blob) {
  const panel = propsPanel(), perms = blob ? "racwd" : "racwdl";
  const expiry = new Date(Date.now() + 3600e3).toISOString().replace(/\.\d{3}Z$/, "Z");
  panel.innerHTML = `<h3>SAS URL for ${blob ? "blob" : "container"} <span class="mono">${esc(blob || container)}</span> <button id="props-close">close</button></h3>
    <form id="sas-form">${[...perms].map(p => `<label><input type="checkbox" name="sp" value="${p}" ${p === "r" ? "checked" : ""}>
      ${{r: "read", a: "add", c: "create", w: "write", d: "delete", l: "list"}[p]}</label>`).join(" ")}
      <label>start <input name="st" placeholder="now" size="20"></label> <label>expiry <input name="se" value="${expiry}" size="20"></label>
      <button>Sign</button></form><p><input id="sas-url" readonly size="90"></p>`;
  panel.querySelector("#props-close").addEventListener("click", () => { panel.hidden = true; });
  panel.querySelector("#sas-form").addEventListener("submit", async ev => {
    ev.preventDefault();
    const f = new FormData(ev.target), params = {account, container, sp: f.getAll("sp").join(""), se: f.get("se")};
    if (blob) params.blob = blob;
    if (f.get("st")) params.st = f.get("st");
    try {
      const sas = await api("/api/sas?" + q(params), {method: "POST", headers: await proof()});
      panel.querySelector("#sas-url").value = sas.url;
      notify("SAS signed");
    } catch (e) {
      notify(e.message, true);
    }
  });
}
