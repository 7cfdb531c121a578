// Lazuli console, the accounts page: every account's containers, queues,
// tables and shares, each created and deleted through its service's own
// REST operation, so names are checked as the service checks them.
"use strict";

// kinds are the four resources an account holds, with the REST calls that
// create and delete one (Azure REST: Create Container, Create Queue,
// Create Table, Create Share and their Delete operations).
const kinds = {
  c: {title: "Containers", svc: "blob", list: a => a.containers,
    create: (acct, name) => rest("PUT", "blob", acct, name, {query: {restype: "container"}}),
    remove: (acct, name) => rest("DELETE", "blob", acct, name, {query: {restype: "container"}})},
  q: {title: "Queues", svc: "queue", list: a => a.queues, label: qv => ` <span class="mono">${qv.messages} msg</span>`,
    create: (acct, name) => rest("PUT", "queue", acct, name),
    remove: (acct, name) => rest("DELETE", "queue", acct, name)},
  t: {title: "Tables", svc: "table", list: a => a.tables,
    create: (acct, name) => rest("POST", "table", acct, "Tables", {headers: {"Content-Type": "application/json", "Prefer": "return-no-content"},
      body: JSON.stringify({TableName: name})}),
    remove: (acct, name) => rest("DELETE", "table", acct, `Tables('${name.replace(/'/g, "''")}')`)},
  s: {title: "Shares", svc: "file", list: a => a.shares,
    create: (acct, name) => rest("PUT", "file", acct, name, {query: {restype: "share"}}),
    remove: (acct, name) => rest("DELETE", "file", acct, name, {query: {restype: "share"}})},
};

const overviewView = {
  async mount() {
    const data = await api("/api/overview");
    view.innerHTML = data.accounts.map(a => `
      <div class="account" data-account="${esc(a.name)}">
        <h2>${esc(a.name)}</h2><div class="errors"></div>
        <div class="kinds">${Object.entries(kinds).map(([k, kind]) => `<div data-kind="${k}">
          <h3>${kind.title} (<span class="count"></span>)</h3><ul class="names"></ul>
          <form class="create"><input name="name" size="14" placeholder="new name" required><button>Create</button></form>
        </div>`).join("")}</div>
      </div>`).join("");
    view.querySelectorAll("form.create").forEach(f => f.addEventListener("submit", ev => {
      ev.preventDefault();
      const acct = f.closest(".account").dataset.account, k = f.closest("[data-kind]").dataset.kind, name = f.elements.name.value;
      perform(`created ${name}`, () => kinds[k].create(acct, name)).then(ok => { if (ok) f.reset(); });
    }));
  },
  async update() {
    const data = await api("/api/overview");
    for (const a of data.accounts) {
      const card = view.querySelector(`.account[data-account="${CSS.escape(a.name)}"]`);
      if (!card) continue;
      render(card.querySelector(".errors"), (a.errors || []).map(e => `<p class="error">${esc(e)}</p>`).join(""));
      for (const [k, kind] of Object.entries(kinds)) {
        const names = kind.list(a), box = card.querySelector(`[data-kind="${k}"]`);
        box.querySelector(".count").textContent = names.length;
        render(box.querySelector(".names"), names.length ? names.map(n => {
          const name = n.name ?? n;
          return `<li>${link([k, a.name, name], name)}${kind.label ? kind.label(n) : ""}
            <button class="small" data-remove="${esc(name)}" title="delete ${esc(name)}">delete</button></li>`;
        }).join("") : `<li class="empty">none</li>`);
      }
    }
  },
};

view.addEventListener("click", ev => {
  const name = ev.target.dataset.remove;
  if (name === undefined || route().kind !== "") return;
  const acct = ev.target.closest(".account").dataset.account, k = ev.target.closest("[data-kind]").dataset.kind;
  if (confirm(`Delete ${name} and everything in it?`)) perform(`deleted ${name}`, () => kinds[k].remove(acct, name));
});
