// A card as the server sent it: its code, or null for a card shown by its back (the server
// never sends a face-down card's value to a role that may not see it: policy.py). ``down``: the
// card lies face down at the table; its value, when the role sees it, is marked "face-down" (a
// dashed back-coloured frame and a ▼) so it never looks like an up card.
"use strict";
window.tablectlCard = function (code, down) {
  const span = document.createElement("span");
  if (code) {
    span.className = "card suit-" + code.slice(-1) + (down ? " face-down" : "");
    span.textContent = code;
    if (down) span.title = "face down at the table: the players do not see it";
  } else {
    span.className = "card down";
    span.title = "face down";
  }
  return span;
};

// The table as the dealer's display shows it: the street, the seats with their cards, bets and
// whether each is still in, the board, the seat to act and the pot.
window.tablectlFrame = function (frame) {
  const card = window.tablectlCard;
  const box = document.createElement("div");
  const head = document.createElement("p");
  head.className = "frame-head";
  head.textContent = (frame.street || "before the deal") + " · pot " + frame.pot +
    (frame.to_act === null ? "" : " · seat " + frame.to_act + " to act");
  box.appendChild(head);
  const seats = document.createElement("div");
  seats.className = "seats";
  for (const seat of frame.seats) {
    const div = document.createElement("div");
    div.className = "seat " + seat.status.replace(" ", "-") + (frame.to_act === seat.seat ? " to-act" : "");
    div.dataset.seat = seat.seat;
    const name = document.createElement("strong");
    name.textContent = "Seat " + seat.seat;
    div.appendChild(name);
    const cards = document.createElement("div");
    cards.className = "cards";
    seat.cards.forEach((c, i) => cards.appendChild(card(c, seat.down[i])));
    div.appendChild(cards);
    const info = document.createElement("small");
    info.textContent = seat.status + (seat.bet ? " · bet " + seat.bet : "");
    div.appendChild(info);
    seats.appendChild(div);
  }
  box.appendChild(seats);
  if (frame.community.length) {
    const board = document.createElement("p");
    board.className = "board";
    board.textContent = "Community ";
    for (const c of frame.community) board.appendChild(card(c));
    box.appendChild(board);
  }
  return box;
};
