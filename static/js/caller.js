/* The caller's console: live over a websocket, keyboard first. No framework, no CDN.
 *
 * The websocket only says "the game changed"; the page then fetches the live part of the
 * console, rendered by the server, and puts it in place, keeping what the caller was typing
 * and where the focus was. After a dropped connection it reconnects with a growing delay and
 * fetches once, so nothing that happened meanwhile is missed. When the game moves to another
 * state (started by another caller, ended by a bingo) the whole console is loaded again; while
 * one of the console's own forms is being sent, nothing is fetched or loaded over it, and while
 * a note for the acta is being typed (forms marked data-keep-typed, outside the live part) the
 * live part changes in place instead, so the note is never wiped.
 * R53: until the session's last 10 minutes the live part says when they begin, and the page
 * fetches it again then, so the console announces the last game with no other change.
 * Shortcut: R jumps to the claim form (R43: a claim stops the draw).
 */
(function () {
  "use strict";

  var root = document.getElementById("console");
  if (!root) {
    return;
  }
  var area = document.getElementById("console-live");
  var live = document.querySelector("[data-live]");
  var fetching = false;
  var again = false;
  // A form is on its way (a ball, a claim, an award): its answer is a whole new console, so
  // the live part is left alone until then, and never reloads over it (that would abort the
  // navigation and hide the answer, e.g. the bingo's confirmation).
  var submitting = false;
  document.addEventListener("submit", function (event) {
    if (!event.defaultPrevented) {
      submitting = true;
    }
  });
  window.addEventListener("pageshow", function () {
    submitting = false; // back in the history: the page is live again
  });

  // A form outside the live part that keeps what is typed in it (the acta's notes): while any
  // of its fields holds text, the console is never loaded again over it.
  var reloadOwed = false;
  function typingElsewhere() {
    return Array.prototype.some.call(
      document.querySelectorAll("[data-keep-typed] textarea, [data-keep-typed] input[type=text]"),
      function (field) {
        return !area.contains(field) && field.value.trim() !== "";
      }
    );
  }

  function stateOf(node) {
    var holder = node.querySelector("[data-console-state]");
    return holder ? holder.getAttribute("data-console-state") : "";
  }

  // What the caller is doing inside the live part: the focused field and every typed value.
  function remember() {
    var kept = { focus: null, values: [] };
    var active = document.activeElement;
    if (active && area.contains(active) && active.name) {
      kept.focus = active.name;
    }
    Array.prototype.forEach.call(area.querySelectorAll("input:not([type=hidden]), textarea"), function (field) {
      if (field.name && field.value && field.type !== "radio") {
        kept.values.push([field.form ? field.form.getAttribute("action") : "", field.name, field.value]);
      }
    });
    return kept;
  }

  function restore(kept) {
    kept.values.forEach(function (entry) {
      var form = area.querySelector('form[action="' + entry[0] + '"]');
      var field = form && form.querySelector('[name="' + entry[1] + '"]');
      if (field && field.type !== "hidden") {
        field.value = entry[2];
      }
    });
    if (kept.focus) {
      var target = area.querySelector('[name="' + kept.focus + '"]:not([type=hidden])') || area.querySelector("[data-primary]");
      if (target) {
        target.focus();
      }
    }
  }

  function refresh() {
    if (submitting) {
      return;
    }
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    window
      .fetch(root.getAttribute("data-live-url"), { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!response.ok) {
          throw new Error(String(response.status));
        }
        return response.text();
      })
      .then(function (html) {
        if (submitting) {
          return;
        }
        var next = document.createElement("div");
        next.innerHTML = html;
        if (stateOf(next) !== stateOf(area) || reloadOwed) {
          if (!typingElsewhere()) {
            // Started elsewhere, or ended: the page's other parts (the claim form) change too.
            window.location.assign(root.getAttribute("data-console-url"));
            return;
          }
          // A note for the acta is being typed: loading the page would lose it. The live part
          // changes in place; the whole page loads at the first change after the note is sent
          // or cleared (sending it loads the page anyway).
          reloadOwed = true;
        }
        var kept = remember();
        area.replaceChildren.apply(area, Array.prototype.slice.call(next.childNodes));
        restore(kept);
        watchLastGame();
        root.setAttribute("data-updated", String(Date.now()));
      })
      .catch(function () {
        /* The next change, or the next reconnect, fetches again. */
      })
      .then(function () {
        fetching = false;
        if (again) {
          again = false;
          refresh();
        }
      });
  }

  // R53: until the session's last 10 minutes, the live part says when they begin; the page
  // fetches it again then, which shows that this is the last game (no other change may come).
  var lastGameTimer = null;
  function watchLastGame() {
    window.clearTimeout(lastGameTimer);
    var holder = area.querySelector("[data-last-game-from]");
    var wait = holder ? Date.parse(holder.getAttribute("data-last-game-from")) - Date.now() : NaN;
    if (!isNaN(wait)) {
      // At most six hours ahead: a session may end months away, and a longer timeout overflows.
      lastGameTimer = window.setTimeout(refresh, Math.min(Math.max(wait + 1000, 5000), 6 * 3600 * 1000));
    }
  }

  function follow() {
    if (!window.WebSocket) {
      return;
    }
    // static/js/live.js: the badge, the heartbeat's watchdog, reconnecting with back-off.
    window.bingoLive.follow(root.getAttribute("data-ws-path"), {
      badge: live,
      onOpen: function (again) {
        if (again) {
          refresh(); // whatever happened while the connection was down
        }
      },
      onMessage: function (message) {
        if (message.type === "console.changed") {
          refresh();
        }
      }
    });
  }

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    // A number field takes no letter, so R works from the blower's number field too.
    var typing = target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) && target.type !== "number";
    if (typing || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    if (event.key === "r" || event.key === "R") {
      var field = document.querySelector("[data-claim-form] [name=card_number]");
      if (field) {
        event.preventDefault();
        field.focus();
        field.select();
      }
    }
  });

  watchLastGame();
  follow();
})();
