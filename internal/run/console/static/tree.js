// Lazuli console, the directory tree of a container in an account with a
// hierarchical namespace (--hnsAccounts): its directories, virtual ones
// (names with '/') and empty ones (blobs with hdi_isfolder=true), each
// opened in place with its toggle and shown in the listing with a click.
// The tree reads /api/tree, which uses only List Blobs and Get Account
// Information.
"use strict";

// dirTree is the tree of one container: the directories expanded (as
// prefixes, "" for the root) and what each listed. It outlives a folder
// change within the container, so the tree stays open as the user walks.
let dirTree = null;

// mountTree keeps the tree of the container shown, or starts one, and
// opens the folder shown and its parents, so that the tree shows where
// the listing is.
function mountTree(r) {
  const key = r.account + "/" + r.name;
  if (!dirTree || dirTree.key !== key) dirTree = {key, hns: false, expanded: new Set([""]), dirs: {}, truncated: []};
  const parts = folderOf(r).split("/").filter(Boolean);
  parts.forEach((_, i) => dirTree.expanded.add(parts.slice(0, i + 1).join("/") + "/"));
  document.getElementById("tree").addEventListener("click", ev => {
    const prefix = ev.target.dataset.toggle;
    if (prefix === undefined) return;
    if (dirTree.expanded.has(prefix)) dirTree.expanded.delete(prefix);
    else dirTree.expanded.add(prefix);
    refresh();
  });
}

// updateTree reads the expanded directories' children and draws the
// tree; an account without a hierarchical namespace has none.
async function updateTree(r) {
  const tree = dirTree, params = new URLSearchParams({account: r.account, container: r.name});
  for (const p of tree.expanded) params.append("prefix", p);
  const data = await api("/api/tree?" + params);
  tree.hns = data.hns;
  tree.dirs = data.dirs || {};
  tree.truncated = data.truncated || [];
  const nav = document.getElementById("tree");
  nav.hidden = !tree.hns;
  if (tree.hns) render(nav, `<h3>Directories</h3><ul class="tree">${treeNode(r, tree, "", r.name)}</ul>`);
}

// treeNode is the item of the directory whose prefix is given ("" for
// the container), with its children when it is expanded.
function treeNode(r, tree, prefix, label) {
  const open = tree.expanded.has(prefix) && prefix in tree.dirs;
  const current = prefix === folderOf(r);
  const route = ["c", r.account, r.name, ...prefix.split("/").filter(Boolean)];
  let html = `<li><button class="twist" data-toggle="${esc(prefix)}" aria-expanded="${open}">${open ? "▾" : "▸"}</button>
    <a href="${hashOf(route)}" class="${current ? "current" : ""}">${esc(label)}</a>`;
  if (open) {
    const kids = tree.dirs[prefix];
    html += `<ul>${kids.map(d => treeNode(r, tree, d + "/", d.slice(prefix.length))).join("")}` +
      (tree.truncated.includes(prefix) ? `<li class="empty">more not listed</li>` : "") + "</ul>";
  }
  return html + "</li>";
}

// isFolderBlob reports whether a listed blob marks a directory
// (metadata hdi_isfolder=true, as the Data Lake API creates one).
function isFolderBlob(b) {
  return Object.entries(b.metadata || {}).some(([k, v]) => k.toLowerCase() === "hdi_isfolder" && String(v).toLowerCase() === "true");
}
