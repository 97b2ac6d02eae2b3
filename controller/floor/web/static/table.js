// The table page: drawn from the data the server put in the page, then again from each
// `table` event of /tables/{id}/events. Text goes in by textContent only.
"use strict";
(function () {
  const initial = JSON.parse(document.getElementById("table-data").textContent);
  const tableId = initial.row.table_id;
  const live = document.getElementById("live");

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  function link(href, text) {
    const a = el("a", text);
    a.href = href;
    return a;
  }

  function drawHand(data) {
    const box = document.getElementById("hand");
    const row = data.row;
    const parts = [el("h2", "The hand")];
    if (data.hand === null) {
      parts.push(el("p", "No hand dealt yet.", "empty"));
    } else {
      const head = el("p", "");
      head.id = "hand-head";
      head.appendChild(link(data.hand.url, "Hand " + data.hand.hand));
      head.appendChild(document.createTextNode(" · " + row.state + " · " + (row.game || "") +
        " · " + (row.stakes || "") + (row.rules ? " · " + row.rules : "")));
      parts.push(head);
      if (data.frame) parts.push(window.tablectlFrame(data.frame));
    }
    box.replaceChildren(...parts);
  }

  function drawRecent(data) {
    const list = document.getElementById("recent");
    list.replaceChildren(...data.recent.map((h) => {
      const li = el("li", "");
      li.appendChild(link(h.url, "Hand " + h.hand));
      li.appendChild(document.createTextNode(" " + h.game + " · " + h.state + " · " + (h.started_at || "")));
      return li;
    }));
    if (!data.recent.length) list.replaceChildren(el("li", "none yet", "empty"));
  }

  function drawDevices(data) {
    const box = document.getElementById("devices");
    box.replaceChildren(...data.row.devices.map((d) =>
      el("span", d.device + " " + d.event, "device " + (d.event === "ready" ? "ok" : "bad"))));
    if (!data.row.devices.length) box.textContent = "no device record yet";
  }

  function drawChain(data) {
    const c = data.chain;
    const box = document.getElementById("chain");
    const rows = [
      ["head", "seq " + c.head_seq],
      ["hash", c.head_hash || "—"],
      ["held beyond a gap", c.held ? c.held + " (seq " + c.held_first + " to " + c.held_last + ")" : "none"],
      ["journal", c.journal_id],
    ];
    box.replaceChildren(...rows.flatMap(([k, v]) => [el("dt", k), el("dd", v, k === "hash" || k === "journal" ? "hash" : "")]));
    box.classList.toggle("held", c.held > 0);
  }

  function drawAlarms(data) {
    const list = document.getElementById("alarms");
    list.replaceChildren(...data.alarms.map((a) =>
      el("li", a.raised_at + (a.table_at ? " (table's clock " + a.table_at + ")" : "") + " · " + a.source + " · " + a.kind + " (seq " + a.seq + "): " + a.message, "alarm")));
    if (!data.alarms.length) list.replaceChildren(el("li", "none", "empty"));
  }

  function draw(data) {
    document.getElementById("terms").textContent = data.row.game || "";
    drawHand(data);
    drawRecent(data);
    drawDevices(data);
    drawChain(data);
    drawAlarms(data);
    document.body.dataset.records = data.row.records;
  }

  draw(initial);
  const feed = new EventSource("/tables/" + encodeURIComponent(tableId) + "/events");
  feed.addEventListener("open", () => { live.className = "live on"; live.textContent = "live"; });
  feed.addEventListener("page", (e) => draw(JSON.parse(e.data)));
  feed.addEventListener("error", () => { live.className = "live off"; live.textContent = "disconnected: reconnecting"; });
})();
