// Lazuli console, a table's page: its entities under an OData $filter
// (typed in, or built from property, operator and value), a page at a
// time with Query Entities' continuation, and an editor
// that inserts, replaces (If-Match the entity's ETag) and deletes entities
// with EDM-typed properties, through the Table service's own operations.
"use strict";

const edmTypes = ["Edm.String", "Edm.Int32", "Edm.Int64", "Edm.Double", "Edm.Boolean", "Edm.DateTime", "Edm.Guid", "Edm.Binary"];
const operators = ["eq", "ne", "gt", "ge", "lt", "le"];

// typeOf is a property's EDM type: its annotation, or what JSON tells
// (the service annotates every other type under full metadata).
function typeOf(e, k) {
  if (e[k + "@odata.type"]) return e[k + "@odata.type"];
  if (typeof e[k] === "number") return "Edm.Int32";
  return typeof e[k] === "boolean" ? "Edm.Boolean" : "Edm.String";
}

// literal is a value as an OData $filter literal of type t (OData ABNF:
// 'text' with '' for ', 123L, datetime'...', guid'...', X'...').
function literal(t, v) {
  switch (t) {
    case "Edm.String": return `'${v.replace(/'/g, "''")}'`;
    case "Edm.Int64": return `${v}L`;
    case "Edm.DateTime": return `datetime'${v}'`;
    case "Edm.Guid": return `guid'${v}'`;
    case "Edm.Binary": return `X'${[...atob(v)].map(c => c.charCodeAt(0).toString(16).padStart(2, "0")).join("")}'`;
    default: return v;
  }
}

// jsonValue sets one property of an entity body: numbers and booleans as
// JSON gives them when the value reads as one; everything else as a
// string with its annotation, which the service checks (400 on a value
// that does not match its type).
function jsonValue(body, name, t, v) {
  if ((t === "Edm.Int32" || t === "Edm.Double") && v.trim() !== "" && isFinite(Number(v))) body[name] = Number(v);
  else if (t === "Edm.Boolean" && (v === "true" || v === "false")) body[name] = v === "true";
  else body[name] = v;
  if (t !== "Edm.String" && typeof body[name] === "string" || t === "Edm.Double") body[name + "@odata.type"] = t;
}

function keyPath(table, e) {
  const quote = s => `'${String(s).replace(/'/g, "''")}'`;
  return `${table}(PartitionKey=${quote(e.PartitionKey)},RowKey=${quote(e.RowKey)})`;
}

const tableView = {
  entities: [], state: null, editing: null,
  async mount(r) {
    this.state = newListing();
    this.editing = null;
    const opts = list => list.map(x => `<option>${x}</option>`).join("");
    view.innerHTML = `<h2>Table ${esc(r.name)}</h2>
      <form id="query-builder"><input name="property" placeholder="property" size="12" required>
        <select name="op">${opts(operators)}</select><select name="type">${opts(edmTypes)}</select>
        <input name="value" placeholder="value" size="16"> <button>Add condition</button></form>
      <form id="filter-form"><input name="filter" size="60" placeholder="PartitionKey eq 'p1' and Price gt 10"> <button>Filter</button></form>
      <div id="entity-rows"></div><div id="pager"></div>
      <form id="entity-form"><h3 id="entity-title">New entity</h3>
        <label>PartitionKey <input name="pk" required></label> <label>RowKey <input name="rk" required></label>
        <div id="entity-props"></div>
        <button type="button" id="add-prop">add property</button> <button id="save-entity">Save entity</button>
        <button type="button" id="new-entity">new entity</button></form>`;
    const builder = document.getElementById("query-builder"), box = document.querySelector("#filter-form input");
    builder.addEventListener("submit", ev => {
      ev.preventDefault();
      const f = builder.elements;
      try {
        const cond = `${f.property.value} ${f.op.value} ${literal(f.type.value, f.value.value)}`;
        box.value = box.value.trim() ? `${box.value.trim()} and ${cond}` : cond;
      } catch (e) {
        notify(`${f.value.value} is not base64, as an Edm.Binary value is written`, true);
      }
    });
    document.getElementById("filter-form").addEventListener("submit", ev => {
      ev.preventDefault();
      this.state.filter = box.value;
      this.state.pager = newPager();
      refresh();
    });
    document.getElementById("add-prop").addEventListener("click", () => addPropRow("", "Edm.String", ""));
    document.getElementById("new-entity").addEventListener("click", () => this.edit(null));
    document.getElementById("entity-props").addEventListener("click", ev => {
      if (ev.target.classList.contains("remove-prop")) ev.target.closest(".prop").remove();
    });
    document.getElementById("entity-form").addEventListener("submit", ev => { ev.preventDefault(); this.save(r); });
    bindPager(this.state);
    document.getElementById("entity-rows").addEventListener("click", ev => {
      const e = this.entities[ev.target.dataset.edit ?? ev.target.dataset.deleteEntity];
      if (!e) return;
      if (ev.target.dataset.edit) this.edit(e);
      else if (confirm(`Delete entity ${e.PartitionKey} / ${e.RowKey}?`)) {
        perform("entity deleted", () => rest("DELETE", "table", r.account, keyPath(r.name, e), {headers: {"If-Match": e["odata.etag"]}}));
      }
    });
    this.edit(null);
  },
  // edit fills the editor with e's properties and types, or empties it.
  edit(e) {
    this.editing = e;
    const f = document.getElementById("entity-form");
    f.elements.pk.value = e ? e.PartitionKey : "";
    f.elements.rk.value = e ? e.RowKey : "";
    f.elements.pk.readOnly = f.elements.rk.readOnly = !!e;
    document.getElementById("entity-title").textContent = e ? `Edit entity ${e.PartitionKey} / ${e.RowKey}` : "New entity";
    document.getElementById("entity-props").innerHTML = "";
    for (const k of e ? propertyNames(e) : []) addPropRow(k, typeOf(e, k), String(e[k]));
  },
  // save inserts a new entity (Insert Entity) or replaces the one being
  // edited (Update Entity) if its ETag still holds (If-Match).
  save(r) {
    const f = document.getElementById("entity-form"), body = {PartitionKey: f.elements.pk.value, RowKey: f.elements.rk.value};
    for (const row of document.querySelectorAll("#entity-props .prop")) {
      const [name, type, value] = ["name", "type", "value"].map(n => row.querySelector(`[name=${n}]`).value);
      if (name) jsonValue(body, name, type, value);
    }
    const headers = {"Content-Type": "application/json", "Prefer": "return-no-content"}, e = this.editing;
    const call = e ? () => rest("PUT", "table", r.account, keyPath(r.name, e), {headers: {...headers, "If-Match": e["odata.etag"]}, body: JSON.stringify(body)})
      : () => rest("POST", "table", r.account, r.name, {headers, body: JSON.stringify(body)});
    perform(e ? "entity replaced" : "entity added", call).then(ok => { if (ok) this.edit(null); });
  },
  async update(r) {
    const s = this.state;
    const data = await api("/api/entities?" + q({account: r.account, table: r.name, filter: s.filter,
      marker: s.pager.markers[s.pager.index]}));
    this.entities = data.entities;
    showPage(s, data.nextMarker);
    const cols = ["PartitionKey", "RowKey", "Timestamp"];
    for (const e of data.entities) for (const k of propertyNames(e)) if (!cols.includes(k)) cols.push(k);
    render(document.getElementById("entity-rows"), data.entities.length ? `<table id="entities"><tr>${cols.map(c => `<th>${esc(c)}</th>`).join("")}<th>ETag</th><th></th></tr>` +
      data.entities.map((e, i) => "<tr>" + cols.map(c => `<td class="mono">${c in e ? esc(cell(e, c)) : ""}</td>`).join("") +
        `<td class="mono">${esc(fmtETag(e["odata.etag"]))}</td><td><button data-edit="${i}">edit</button> <button data-delete-entity="${i}">delete</button></td></tr>`).join("") + "</table>"
      : `<p class="empty">no entities</p>`);
  },
};

// propertyNames are an entity's own properties: not its keys, timestamp
// or OData annotations.
function propertyNames(e) {
  return Object.keys(e).filter(k => !["PartitionKey", "RowKey", "Timestamp"].includes(k) && !k.includes("odata."));
}

function cell(e, k) {
  const t = typeOf(e, k);
  if (t === "Edm.DateTime") return fmtDate(e[k]);
  return t === "Edm.String" || t === "Edm.Int32" ? String(e[k]) : `${e[k]} (${t.slice(4)})`;
}

function addPropRow(name, type, value) {
  const row = document.createElement("div");
  row.className = "prop";
  row.innerHTML = `<input name="name" placeholder="name" value="${esc(name)}"> <select name="type">${edmTypes.map(t =>
    `<option ${t === type ? "selected" : ""}>${t}</option>`).join("")}</select> <input name="value" placeholder="value" size="30" value="${esc(value)}">
    <button type="button" class="remove-prop">remove</button>`;
  document.getElementById("entity-props").appendChild(row);
}
