/* The player's play session on the online pages (bingo/playtime): a reminder of the time played
 * at each interval the player chose (R101), the inactivity invitation and warning
 * (PT-806/70-71), and, when the server says the session must end (time limit, inactivity), the
 * way to its summary (PT-806/67). The state comes from data attributes and from
 * /api/players/me/playtime/, read every 30 seconds. No framework, no inline script (CSP). */
(function () {
  "use strict";
  var root = document.getElementById("playtime");
  if (!root) {
    return;
  }
  var session = root.getAttribute("data-session");
  var every = parseInt(root.getAttribute("data-every") || "0", 10) || 0;
  // The session's start on this browser's clock: now minus the seconds the server counted.
  var started = Date.now() - (parseInt(root.getAttribute("data-seconds") || "0", 10) || 0) * 1000;
  var url = root.getAttribute("data-url");
  var label = root.getAttribute("data-label-reminder");
  var reminder = root.querySelector("[data-playtime-reminder]");
  var invite = root.querySelector("[data-playtime-invite]");
  var warn = root.querySelector("[data-playtime-warn]");
  var key = "playtime-reminded-" + session;
  var leaving = false;
  var polling = false;

  function reminded() {
    try {
      return parseInt(window.sessionStorage.getItem(key) || "0", 10) || 0;
    } catch (e) {
      return 0;
    }
  }

  function remember(minutes) {
    try {
      window.sessionStorage.setItem(key, String(minutes));
    } catch (e) { /* private mode: the reminder may show again on the next page */ }
  }

  function remind() {
    if (!every) {
      return;
    }
    var minutes = Math.floor((Date.now() - started) / 60000);
    var due = Math.floor(minutes / every) * every;
    if (due >= every && due > reminded()) {
      remember(due);
      reminder.textContent = label.replace("{n}", due);
      reminder.hidden = false;
    }
  }

  function leave(to) {
    if (!leaving) {
      leaving = true;
      window.location.assign(to);
    }
  }

  function apply(state) {
    if (!state || state.session === null) {
      return;
    }
    if (state.end) {
      leave(state.end_url);
      return;
    }
    every = state.reminder_minutes || 0;
    invite.hidden = state.inactivity !== "invite";
    warn.hidden = state.inactivity !== "warn";
  }

  function poll() {
    if (polling || leaving) {
      return; // one read at a time (a tab asleep wakes with many intervals due)
    }
    polling = true;
    window.fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (response.status === 403 || response.status === 401) {
          // The session ended elsewhere (idle, limit, inactivity, logout): its summary.
          leave(root.getAttribute("data-summary-url"));
          return null;
        }
        return response.ok ? response.json() : null;
      })
      .then(function (state) {
        polling = false;
        apply(state);
      })
      .catch(function () {
        polling = false; // offline: the next read tries again
      });
  }

  // A form sent (the logout, a purchase) or the page left: a read answered late must not send
  // the player elsewhere.
  document.addEventListener("submit", function () {
    leaving = true;
  });
  window.addEventListener("pagehide", function () {
    leaving = true;
  });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      leaving = false; // back in the history: the page is live again
    }
  });

  // The game page's own state carries the same part ("playtime"): the game's script may hand it.
  window.bingoPlaytime = { apply: apply };
  remind();
  window.setInterval(remind, 15000);
  window.setInterval(poll, 30000);
})();
