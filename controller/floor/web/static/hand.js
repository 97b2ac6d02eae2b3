// The hand page's replay: the steps, one at a time, with the table after each (the frames the
// server sent, already masked for this role). Text goes in by textContent only.
"use strict";
(function () {
  const frames = JSON.parse(document.getElementById("frames").textContent);
  const steps = Array.from(document.querySelectorAll("#steps li.step"));
  const view = document.getElementById("frame");
  const position = document.getElementById("position");
  const play = document.getElementById("play");
  let at = frames.length - 1;
  let timer = null;

  function show(i) {
    at = Math.max(0, Math.min(frames.length - 1, i));
    if (frames.length === 0) {
      position.textContent = "no step recorded yet";
      return;
    }
    view.replaceChildren(window.tablectlFrame(frames[at]));
    steps.forEach((li, n) => {
      li.classList.toggle("current", n === at);
      li.classList.toggle("later", n > at);
    });
    position.textContent = "step " + (at + 1) + " of " + frames.length + ": " + steps[at].textContent.trim();
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = "▶ play";
  }

  document.getElementById("first").addEventListener("click", () => { stop(); show(0); });
  document.getElementById("back").addEventListener("click", () => { stop(); show(at - 1); });
  document.getElementById("next").addEventListener("click", () => { stop(); show(at + 1); });
  document.getElementById("last").addEventListener("click", () => { stop(); show(frames.length - 1); });
  play.addEventListener("click", () => {
    if (timer !== null) return stop();
    if (at >= frames.length - 1) show(0);
    play.textContent = "❚❚ pause";
    timer = setInterval(() => {
      show(at + 1);
      if (at >= frames.length - 1) stop();
    }, 700);
  });
  steps.forEach((li, n) => li.addEventListener("click", () => { stop(); show(n); }));
  show(at);
})();
