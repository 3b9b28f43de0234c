/* What every live page shares (the room's display, the price board, the caller's console, the
 * online player's game and the lobby): its websocket and its countdowns. No framework, no
 * build step, no inline script (CSP).
 *
 * bingoLive.follow(path, options) opens ws(s)://<this host><path> and keeps it open:
 *
 * - the badge (options.badge, a [data-live] element with data-label-live and
 *   data-label-offline, or options.labels) reads «Em direto» only while the page hears its
 *   server, and «A restabelecer a ligação…» otherwise;
 * - the server's hub sends {"type": "live.heartbeat", "every": seconds} when nothing else
 *   happens (bingo/live/fanout.py). A page that hears nothing at all — no message, no
 *   heartbeat — for 2.5 intervals is not live, whatever the socket says (a proxy or a
 *   worker that holds the socket open but relays nothing): the badge says so, and the socket
 *   is dropped and opened again;
 * - a dropped connection is opened again after a growing delay (1 s doubling to 30 s), with
 *   jitter, so a restarted server is not hit by every screen at once;
 * - options.onOpen(again) runs on each open (again: not the first), options.onMessage(message)
 *   for each message but heartbeats, options.onLive(isLive) when the badge changes.
 *
 * bingoLive.countdowns(nodes) ticks each [data-countdown] element every second: it reads
 * data-label-open followed by the minutes and seconds left until its data-closes-at (ISO 8601),
 * then data-label-closed. Inside a [data-sale] element (or one that is), the [data-buy] elements
 * (a buy button, a buy form) go when the countdown reaches 0 — hidden, their buttons disabled —
 * and come back if data-closes-at moves later (R93: the server refuses a late purchase anyway).
 */
(function () {
  "use strict";

  var FIRST_DELAY = 1000;
  var MAX_DELAY = 30000;
  var DEFAULT_HEARTBEAT_MS = 10000;
  var SILENT_HEARTBEATS = 2.5;

  function follow(path, options) {
    options = options || {};
    var badge = options.badge || null;
    var delay = FIRST_DELAY;
    var heartbeatMs = DEFAULT_HEARTBEAT_MS;
    var opened = false;
    var socket = null;
    var watchdog = null;
    var isLive = null;

    function label(name) {
      var labels = options.labels || {};
      return labels[name] || (badge && badge.getAttribute("data-label-" + name)) || name;
    }

    function setLive(live) {
      if (live === isLive) {
        return;
      }
      isLive = live;
      if (badge) {
        badge.textContent = label(live ? "live" : "offline");
        badge.classList.toggle("is-live", live);
      }
      if (options.onLive) {
        options.onLive(live);
      }
    }

    function heard() {
      window.clearTimeout(watchdog);
      watchdog = window.setTimeout(silent, heartbeatMs * SILENT_HEARTBEATS);
    }

    function silent() {
      // Open but mute: not live. Drop it and connect again.
      setLive(false);
      var mute = socket;
      socket = null;
      if (mute) {
        mute.onopen = mute.onmessage = mute.onclose = null;
        try {
          mute.close();
        } catch (err) {
          /* closing a dead socket may throw in old browsers */
        }
      }
      later();
    }

    function later() {
      window.clearTimeout(watchdog);
      var wait = delay + Math.floor(Math.random() * 500);
      delay = Math.min(delay * 2, MAX_DELAY);
      window.setTimeout(connect, wait);
    }

    function connect() {
      var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
      socket = new WebSocket(scheme + window.location.host + path);
      socket.onopen = function () {
        delay = FIRST_DELAY;
        setLive(true);
        heard();
        if (options.onOpen) {
          options.onOpen(opened);
        }
        opened = true;
      };
      socket.onmessage = function (event) {
        var message;
        try {
          message = JSON.parse(event.data);
        } catch (err) {
          return;
        }
        setLive(true);
        if (message && message.type === "live.heartbeat") {
          if (Number(message.every) > 0) {
            heartbeatMs = Number(message.every) * 1000;
          }
          heard();
          return;
        }
        heard();
        if (message && options.onMessage) {
          options.onMessage(message);
        }
      };
      socket.onclose = function () {
        socket = null;
        setLive(false);
        later();
      };
    }

    setLive(false);
    if (window.WebSocket) {
      connect();
    }
  }

  function buyable(scope, open) {
    if (!scope) {
      return;
    }
    var found = Array.prototype.slice.call(scope.querySelectorAll("[data-buy]"));
    if (scope.hasAttribute("data-buy")) {
      found.push(scope);
    }
    found.forEach(function (node) {
      node.hidden = !open;
      node.classList.toggle("is-closed", !open);
      Array.prototype.forEach.call(node.querySelectorAll("button, input"), function (field) {
        field.disabled = !open;
      });
    });
  }

  function countdowns(nodes) {
    if (!nodes || !nodes.length) {
      return;
    }
    function pad(n) {
      return (n < 10 ? "0" : "") + n;
    }
    // The server's clock, not the device's (which may be minutes off): the page says what time it
    // was at the server when it was made, and the countdown runs from there.
    var said = Date.parse(document.body.getAttribute("data-server-now") || "");
    var offset = isNaN(said) ? 0 : said - Date.now();
    function tick() {
      var now = Date.now() + offset;
      Array.prototype.forEach.call(nodes, function (node) {
        var left = Math.round((Date.parse(node.getAttribute("data-closes-at")) - now) / 1000);
        if (isNaN(left)) {
          return;
        }
        var text = left <= 0 ? node.getAttribute("data-label-closed")
          : node.getAttribute("data-label-open") + " " + Math.floor(left / 60) + ":" + pad(left % 60);
        if (node.textContent !== text) {
          node.textContent = text;
        }
        node.classList.toggle("is-closed", left <= 0);
        buyable(node.closest("[data-sale]"), left > 0);
      });
    }
    tick();
    window.setInterval(tick, 1000);
  }

  window.bingoLive = { follow: follow, countdowns: countdowns };
})();
