// The floor page: rows from the server-sent events of /floor/events, filtered and sorted here.
// Text only goes in by textContent: nothing a table sends is ever parsed as HTML.
"use strict";
(function () {
  const body = document.querySelector("#tables tbody");
  const empty = document.getElementById("empty");
  const live = document.getElementById("live");
  const filter = document.getElementById("filter");
  const game = document.getElementById("game");
  const alarmed = document.getElementById("alarmed");
  const rows = new Map();
  // A table not heard from for [web] silent_after seconds is flagged silent, reckoned on the
  // server's clock (the page's data-now against the browser's at loading), redrawn as time goes.
  const table = document.getElementById("tables");
  const silentAfter = Number(table.dataset.silentAfter);
  const skew = Number(table.dataset.now) - Date.now() / 1000;
  function silentFor(row) {
    const quiet = Date.now() / 1000 + skew - Date.parse(row.last_seen) / 1000;
    return quiet > silentAfter ? quiet : null;
  }
  let sortKey = "table_id";
  let sortUp = true;

  function cell(tr, className, text, small) {
    const td = document.createElement("td");
    if (className) td.className = className;
    td.textContent = text;
    if (small) {
      td.appendChild(document.createElement("br"));
      const s = document.createElement("small");
      s.textContent = small;
      td.appendChild(s);
    }
    tr.appendChild(td);
    return td;
  }

  function link(href, text) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    return a;
  }

  function render(row) {
    const tr = document.createElement("tr");
    tr.dataset.table = row.table_id;
    const quiet = silentFor(row);
    tr.className = (row.alarms || row.chain_broken ? "alarm" : "") + (quiet === null ? "" : " silent");
    const name = cell(tr, "table", "");
    name.appendChild(link("/tables/" + encodeURIComponent(row.table_id), row.table_id));
    cell(tr, "", row.game || "—");
    cell(tr, "terms", row.stakes || "—", row.rules || "");
    const hand = cell(tr, "hand", row.hand === null ? "—" : "");
    if (row.hand !== null) {
      const page = "/tables/" + encodeURIComponent(row.table_id) + "/hands/" + row.journal_id + "/" + row.hand;
      hand.appendChild(link(page, String(row.hand)));
      hand.appendChild(document.createTextNode(" "));
      const s = document.createElement("small");
      s.textContent = row.state;
      hand.appendChild(s);
    }
    cell(tr, "street", row.street || "—");
    cell(tr, "to-act", row.to_act === null ? "—" : "seat " + row.to_act);
    cell(tr, "pot", row.pot === null ? "—" : String(row.pot));
    const devices = cell(tr, "devices", "");
    for (const d of row.devices) {
      const span = document.createElement("span");
      span.className = "device " + (d.event === "ready" ? "ok" : "bad");
      span.textContent = d.device + " " + d.event;
      devices.appendChild(span);
      devices.appendChild(document.createTextNode(" "));
    }
    const heard = cell(tr, "heard", row.last_heard);
    if (quiet !== null) {
      const flag = document.createElement("strong");
      flag.className = "silent-flag";
      flag.textContent = "SILENT";
      flag.title = "nothing heard for " + Math.floor(quiet / 60) + " min (silent_after " + silentAfter + " s)";
      heard.appendChild(document.createTextNode(" "));
      heard.appendChild(flag);
    }
    const alarms = cell(tr, "alarms", row.alarms || row.chain_broken ? "" : "none");
    if (row.chain_broken) {
      const broken = document.createElement("strong");
      broken.className = "chain-broken";
      broken.textContent = "CHAIN BROKEN at record " + row.chain_broken;
      alarms.appendChild(broken);
      alarms.appendChild(document.createElement("br"));
    }
    if (row.alarms) {
      const strong = document.createElement("strong");
      strong.textContent = row.alarms + (row.alarms > 1 ? " ALARMS" : " ALARM");
      alarms.appendChild(strong);
      alarms.appendChild(document.createTextNode(" " + (row.alarm || "")));
    }
    return tr;
  }

  function shown(row) {
    const words = filter.value.trim().toLowerCase();
    if (words && !(row.table_id + " " + (row.game || "")).toLowerCase().includes(words)) return false;
    if (game.value && row.game !== game.value) return false;
    return !alarmed.checked || row.alarms > 0 || row.chain_broken !== null;
  }

  function compare(a, b) {
    const x = a[sortKey], y = b[sortKey];
    if (x === y) return a.table_id < b.table_id ? -1 : 1;
    if (x === null) return 1;
    if (y === null) return -1;
    const order = typeof x === "number" ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true });
    return sortUp ? order : -order;
  }

  function draw() {
    const list = Array.from(rows.values()).filter(shown).sort(compare);
    body.replaceChildren(...list.map(render));
    empty.hidden = rows.size > 0;
    const games = new Set(Array.from(rows.values()).map((r) => r.game).filter(Boolean));
    for (const name of games) {
      if (!Array.from(game.options).some((o) => o.value === name)) game.add(new Option(name, name));
    }
  }

  for (const th of document.querySelectorAll("th[data-sort]")) {
    th.addEventListener("click", () => {
      sortUp = th.dataset.sort === sortKey ? !sortUp : true;
      sortKey = th.dataset.sort;
      for (const other of document.querySelectorAll("th[data-sort]")) other.removeAttribute("aria-sort");
      th.setAttribute("aria-sort", sortUp ? "ascending" : "descending");
      draw();
    });
  }
  for (const input of [filter, game, alarmed]) input.addEventListener("input", draw);
  // A silent table sends nothing: its flag comes from the clock, so the rows are redrawn.
  window.setInterval(draw, 5000);

  const feed = new EventSource("/floor/events");
  feed.addEventListener("snapshot", (e) => {
    rows.clear();
    for (const row of JSON.parse(e.data)) rows.set(row.table_id, row);
    draw();
  });
  feed.addEventListener("table", (e) => {
    const row = JSON.parse(e.data);
    rows.set(row.table_id, row);
    draw();
  });
  feed.addEventListener("status", (e) => {
    const on = JSON.parse(e.data).live;
    live.className = "live " + (on ? "on" : "off");
    live.textContent = on ? "live" : "not following the tables (reconnecting)";
  });
  feed.addEventListener("error", () => {
    live.className = "live off";
    live.textContent = "disconnected: reconnecting";
  });
})();
