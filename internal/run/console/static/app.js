// Lazuli console: hash routes, each view mounted once (its forms and
// panels) and its data refreshed every two seconds while the page is open.
"use strict";

const crumbs = document.getElementById("crumbs");
const live = document.getElementById("live");
const views = {"": overviewView, c: containerView, q: queueView, t: tableView, s: shareView};
let mounted = null; // the hash whose view is mounted

function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(p => p !== "").map(decodeURIComponent);
  return {kind: parts[0] || "", account: parts[1], name: parts[2], rest: parts.slice(3).join("/")};
}

function setCrumbs(r) {
  let html = link([""], "accounts");
  if (r.account) html += " / " + esc(r.account);
  if (r.name) html += " / " + link([r.kind, r.account, r.name], {c: "container", q: "queue", t: "table", s: "share"}[r.kind] + " " + r.name);
  const dirs = r.rest ? r.rest.split("/") : [];
  dirs.forEach((d, i) => { html += " / " + link([r.kind, r.account, r.name, ...dirs.slice(0, i + 1)], d); });
  crumbs.innerHTML = html;
}

async function renderSide() {
  const clock = await api("/clock");
  document.getElementById("clock-now").textContent = fmtDate(clock.now);
  const f = await api("/faults");
  render(document.getElementById("faults"), f.rules.length ? "<ul>" + f.rules.map(r =>
    `<li class="mono">#${r.id} ${esc(JSON.stringify(Object.fromEntries(Object.entries(r).filter(([k]) => !["id", "seen", "injected"].includes(k)))))}
     seen ${r.seen}, injected ${r.injected} <button data-delete="/faults/${r.id}">remove</button></li>`).join("") + "</ul>" : `<p class="empty">none</p>`);
}

// refresh runs one at a time; a call while one runs (an action's, a
// route change's) runs once more when it ends.
let busy = false, again = false;
async function refresh() {
  if (busy) { again = true; return; }
  busy = true;
  again = false;
  const r = route(), v = views[r.kind] || overviewView;
  try {
    if (mounted !== location.hash) {
      setCrumbs(r);
      await v.mount(r);
      mounted = location.hash;
    }
    await v.update(r);
    await renderSide();
    live.classList.remove("stale");
    live.textContent = "live " + fmtDate(new Date().toISOString());
  } catch (e) {
    live.classList.add("stale");
    if (mounted !== location.hash) view.innerHTML = `<p class="error">${esc(e.message)}</p>`;
    else notify(e.message, true);
  } finally {
    busy = false;
    if (again) refresh();
  }
}

// act sends one of the admin listener's own actions (clock, faults) or a
// console action (break lease, delete blob, clear queue).
function act(path, method, body) {
  return perform("done", async () => api(path, {method, body,
    headers: {...await proof(), ...(body ? {"Content-Type": "application/json"} : {})}}));
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
document.getElementById("fault-form").addEventListener("submit", ev => {
  ev.preventDefault();
  act("/faults", "POST", new FormData(ev.target).get("rule"));
});
window.addEventListener("hashchange", () => { mounted = null; refresh(); });
refresh();
setInterval(refresh, 2000);
