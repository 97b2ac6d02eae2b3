// The alarms page: the list again from each "alarms" event of /alarms/events, open ones first.
// Text only goes in by textContent: nothing a table or a note holds is ever parsed as HTML.
// A row whose alarm is still in the same state is kept as it is, so a note being typed stays.
"use strict";
(function () {
  const list = document.getElementById("alarm-list");
  const body = list.querySelector("tbody");
  const none = document.getElementById("none");
  const count = document.getElementById("open-count");
  const live = document.getElementById("live");
  const csrf = list.dataset.csrf;
  const canAck = list.dataset.canAck === "yes";

  function cell(tr, className) {
    const td = document.createElement("td");
    td.className = className;
    tr.appendChild(td);
    return td;
  }

  function text(parent, tag, className, words) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    el.textContent = words;
    parent.appendChild(el);
    return el;
  }

  // The group's button's words (null: no button), as the page's template writes them.
  function groupLabel(alarm) {
    if (!canAck || alarm.ack || !(alarm.group > 1)) return null;
    return "Acknowledge all " + alarm.group + " " + alarm.kind + " of " + alarm.table_id;
  }

  function ackForm(alarm) {
    const form = document.createElement("form");
    form.method = "post";
    form.action = "/alarms/" + alarm.id + "/ack";
    form.className = "ack-form";
    const token = document.createElement("input");
    token.type = "hidden";
    token.name = "csrf_token";
    token.value = csrf;
    const note = document.createElement("input");
    note.type = "text";
    note.name = "note";
    note.required = true;
    note.maxLength = 2000;
    note.placeholder = "what was done";
    note.setAttribute("aria-label", "note on alarm " + alarm.id);
    const button = document.createElement("button");
    button.type = "submit";
    button.textContent = "Acknowledge";
    form.append(token, note, button);
    const label = groupLabel(alarm);
    if (label) {
      // One note for the open alarms of this cause at this table up to this one, each recorded.
      const all = document.createElement("button");
      all.type = "submit";
      all.className = "ack-group";
      all.formAction = "/alarms/" + alarm.id + "/ack-group";
      all.textContent = label;
      form.appendChild(all);
    }
    return form;
  }

  function render(alarm) {
    const tr = document.createElement("tr");
    tr.dataset.alarm = String(alarm.id);
    tr.className = alarm.ack ? "acked" : "open";
    const raised = cell(tr, "raised");
    raised.textContent = alarm.raised_at;  // the floor's clock; the table's where it differs
    if (alarm.table_at) {
      raised.appendChild(document.createElement("br"));
      text(raised, "small", "table-clock", "table's clock " + alarm.table_at);
    }
    cell(tr, "table").textContent = alarm.table_id;
    const what = cell(tr, "what");
    text(what, "strong", "", alarm.kind);
    what.appendChild(document.createTextNode(" "));
    text(what, "small", "", alarm.source);
    what.appendChild(document.createElement("br"));
    text(what, "span", "message", alarm.message);
    const record = cell(tr, "record");
    // The journal's first 12 hex digits (the whole id in the tooltip): enough to tell apart.
    record.title = "journal " + alarm.journal_id;
    record.textContent = alarm.journal_id ? alarm.journal_id.slice(0, 12) + "…" : "—";
    record.appendChild(document.createElement("br"));
    text(record, "small", "", "record " + alarm.seq);
    const ack = cell(tr, "ack");
    if (alarm.ack) {
      text(ack, "span", "by", alarm.ack.user + ", " + alarm.ack.at);
      ack.appendChild(document.createElement("br"));
      text(ack, "span", "ack-note", alarm.ack.note);
    } else if (canAck) {
      ack.appendChild(ackForm(alarm));
    } else {
      ack.textContent = "open";
    }
    return tr;
  }

  function draw(alarms) {
    const kept = new Map();
    for (const tr of body.querySelectorAll("tr[data-alarm]")) kept.set(tr.dataset.alarm, tr);
    const rows = alarms.map((alarm) => {
      const old = kept.get(String(alarm.id));
      if (!old || old.className !== (alarm.ack ? "acked" : "open")) return render(alarm);
      const button = old.querySelector(".ack-group");
      return (button ? button.textContent : null) === groupLabel(alarm) ? old : render(alarm);
    });
    body.replaceChildren(...rows);
    none.hidden = alarms.length > 0;
    count.textContent = alarms.filter((a) => !a.ack).length + " open";
  }

  const feed = new EventSource("/alarms/events");
  feed.addEventListener("alarms", (e) => draw(JSON.parse(e.data)));
  feed.addEventListener("open", () => {
    live.className = "live on";
    live.textContent = "live";
  });
  feed.addEventListener("error", () => {
    live.className = "live off";
    live.textContent = "disconnected: reconnecting";
  });
})();
