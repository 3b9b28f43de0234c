/* The player's game screen (R94-R97): the cards marked live, best first with the numbers each
 * lacks for the prize in play, the 75-ball card under B I N G O, the balls (the new one large and
 * animated, called aloud through static/js/speech.js when the sound is on), the prizes and
 * winners, a prize won and the "one number to go" warning (R95) each in its own region, marking
 * by hand (R96).
 *
 * The server's state (/api/online/games/<id>/state/, also embedded in the page) holds the
 * player's cards, the winning targets and the balls. The websocket ws/online/game/<id>/ relays
 * the game's state after each ball ("game.state": the balls, stage and prizes), from which
 * the page marks the cards and finds "one to go" itself at once, and a bare "game.changed"
 * when the page must read the whole state again. On every (re)connect and on any gap (a ball
 * missing, a prize or stage change) the page reads the state again, so it never shows a wrong
 * board; a state with fewer balls than the one shown (a read answered after a newer ball was
 * relayed) is never shown over it, and a ball relayed while a read is in flight reads once more.
 * A demo game's page (templates/demo/game.html, R102) has no websocket: ``data-poll-ms`` makes the
 * page read its state (/api/demo/games/<id>/) once a ball interval. No framework, no build step,
 * no inline script (CSP).
 */
(function () {
  "use strict";

  var root = document.getElementById("online-game");
  if (!root) {
    return;
  }
  var gameId = Number(root.getAttribute("data-game"));
  var stateUrl = root.getAttribute("data-state-url");
  var state = JSON.parse(document.getElementById("player-state").textContent);
  var live = root.querySelector("[data-live]");
  var fetching = false;
  var again = false;
  var shown = null; // the game and ball count last drawn: a ball beyond it is new

  function label(name) {
    return root.getAttribute("data-label-" + name) || name;
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = text;
    }
    return node;
  }

  function setText(selector, text) {
    var node = root.querySelector(selector);
    if (node && node.textContent !== String(text)) {
      node.textContent = text;
    }
  }

  // --- marking by hand (R96): kept in this browser, per game and card --------------------------

  function marksKey(card) {
    return "bingo-marks-" + gameId + "-" + card.series_id + "-" + card.number;
  }

  function handMarks(card) {
    try {
      return JSON.parse(window.localStorage.getItem(marksKey(card)) || "[]");
    } catch (err) {
      return [];
    }
  }

  function toggleHandMark(card, n) {
    var marks = handMarks(card);
    var at = marks.indexOf(n);
    if (at >= 0) {
      marks.splice(at, 1);
    } else {
      marks.push(n);
    }
    try {
      window.localStorage.setItem(marksKey(card), JSON.stringify(marks));
    } catch (err) {
      /* private mode: marks last as long as the page */
    }
  }

  // --- one number to go (R95), from the rules' targets ------------------------------------------

  function missing(card, target, drawn) {
    var count = 0;
    target.cells.forEach(function (cell) {
      var n = card.grid[cell[0]][cell[1]];
      if (n !== null && !drawn[n]) {
        count += 1;
      }
    });
    return count;
  }

  function oneToGo(drawn) {
    var awarded = {};
    (state.awarded || []).forEach(function (k) {
      awarded[k] = true;
    });
    var found = [];
    state.cards.forEach(function (card) {
      var prizes = {};
      state.targets.forEach(function (target) {
        if (!awarded[target.prize] && !prizes[target.prize] && missing(card, target, drawn) === 1) {
          prizes[target.prize] = true;
          found.push(card.label + " · " + label("prize-" + target.prize));
        }
      });
    });
    return found;
  }

  // --- the prize in play: each card's numbers to go, the cards best first ----------------------
  // The same count and order as the server's (bingo/engine/screen.py), from the same targets, so
  // the board is right as each ball arrives, before any read.

  function toGo(card, drawn) {
    if (!state.in_play) {
      return null;
    }
    var best = null;
    state.targets.forEach(function (target) {
      if (target.prize === state.in_play.kind) {
        var count = missing(card, target, drawn);
        best = best === null ? count : Math.min(best, count);
      }
    });
    return best;
  }

  function bestFirst(drawn) {
    return state.cards.map(function (card) {
      return { card: card, toGo: toGo(card, drawn) };
    }).sort(function (a, b) {
      var x = a.toGo === null ? Infinity : a.toGo;
      var y = b.toGo === null ? Infinity : b.toGo;
      return (x === y ? 0 : x - y) || a.card.order - b.card.order;
    });
  }

  function toGoText(count) {
    if (count === 0) {
      return label("to-go-done");
    }
    return label(count === 1 ? "to-go-one" : "to-go-other").replace("{n}", String(count));
  }

  // --- drawing the page ---------------------------------------------------------------------

  function renderCards(drawn) {
    var box = root.querySelector("[data-cards]");
    // The cards are drawn afresh: the number being marked by hand keeps the keyboard's focus.
    var focused = document.activeElement && box.contains(document.activeElement)
      ? document.activeElement.getAttribute("data-mark") : null;
    box.textContent = "";
    setText("[data-cards-count]", state.cards.length);
    if (!state.cards.length) {
      box.appendChild(el("p", "empty", label("no-cards")));
      return;
    }
    var manual = state.marking === "manual";
    // R73 b): the cells of the game's pattern are outlined on each card.
    var pattern = state.game.pattern ? state.game.pattern.rows : null;
    var headers = state.game.headers;
    bestFirst(drawn).forEach(function (ranked) {
      var card = ranked.card;
      var figure = el("figure", "online-card");
      figure.setAttribute("data-to-go", ranked.toGo === null ? "" : String(ranked.toGo));
      var caption = el("figcaption");
      caption.appendChild(el("span", null, card.label));
      if (ranked.toGo !== null) {
        caption.appendChild(document.createTextNode(" "));
        var counter = el("span", "online-to-go", toGoText(ranked.toGo));
        counter.setAttribute("data-to-go-text", "");
        caption.appendChild(counter);
      }
      figure.appendChild(caption);
      var table = el("table", "online-grid");
      if (headers) {
        // R70: the 75-ball card's columns under B I N G O.
        var head = el("thead");
        var letters = el("tr");
        headers.forEach(function (letter) {
          var th = el("th", null, letter);
          th.setAttribute("scope", "col");
          letters.appendChild(th);
        });
        head.appendChild(letters);
        table.appendChild(head);
      }
      var body = el("tbody");
      var byHand = manual ? handMarks(card) : [];
      card.grid.forEach(function (row, r) {
        var tr = el("tr");
        row.forEach(function (n, c) {
          var td = el("td", null, n === null ? "" : String(n));
          if (pattern && pattern[r].charAt(c) === "X") {
            td.classList.add("in-pattern");
          }
          if (n === null) {
            td.classList.add(card.marks[r][c] ? "is-free" : "is-blank");
          } else {
            var marked = manual ? byHand.indexOf(n) >= 0 : !!drawn[n];
            td.classList.toggle("is-marked", marked);
            td.classList.toggle("is-drawn", !!drawn[n]);
            if (manual) {
              // A real button in the cell: the keyboard reaches it (Tab) and presses it (Enter,
              // Space), and a screen reader hears whether it is marked (aria-pressed).
              td.textContent = "";
              var button = el("button", "mark-cell", String(n));
              button.type = "button";
              button.setAttribute("aria-pressed", String(marked));
              button.setAttribute("data-mark", marksKey(card) + "-" + n);
              button.addEventListener("click", function () {
                toggleHandMark(card, n);
                render();
              });
              td.appendChild(button);
            }
          }
          tr.appendChild(td);
        });
        body.appendChild(tr);
      });
      table.appendChild(body);
      figure.appendChild(table);
      box.appendChild(figure);
    });
    if (focused) {
      var again = box.querySelector('[data-mark="' + focused + '"]');
      if (again) {
        again.focus();
      }
    }
  }

  // A screen reader hears each new ball from the polite live region (WCAG 4.1.3); the balls
  // already drawn when the page opens are not read out.
  var announced = state.last;
  function announceBall() {
    if (state.last !== null && state.last !== announced) {
      setText("[data-announce]", label("ball") + " " + state.last);
    }
    announced = state.last;
  }

  function renderPrizes() {
    var list = root.querySelector("[data-prizes]");
    list.textContent = "";
    state.prizes.forEach(function (prize) {
      var text = prize.name + ": " + prize.display;
      if (prize.won) {
        text += " · " + label("won-by") + " " + prize.winners.join(", ");
      }
      var item = el("li", prize.mine ? "is-mine" : null, text);
      list.appendChild(item);
    });
  }

  function render() {
    var drawn = {};
    state.balls.forEach(function (n) {
      drawn[n] = true;
    });
    setText("[data-stage]", state.game.state_name);
    setText("[data-balance]", state.balance_display);
    setText("[data-count]", state.balls.length);
    setText("[data-last]", state.last === null ? "—" : state.last);
    announceBall();
    var list = root.querySelector("[data-drawn]");
    list.textContent = "";
    state.balls.forEach(function (n) {
      list.appendChild(el("li", null, String(n)));
    });
    var buy = root.querySelector('[data-choice="buy"]');
    if (buy) {
      buy.hidden = !state.choices.buy;
    }
    // The close of sales as the server has it now (a continuous room keeps a game selling a
    // while after its first purchase): the countdown and the buy form follow it.
    var countdown = root.querySelector("[data-choice=buy] [data-countdown]");
    if (countdown && state.game.sales_close_at) {
      countdown.setAttribute("data-closes-at", state.game.sales_close_at);
    }
    root.classList.toggle("is-buying", !!state.choices.buy);
    // A demo game (R102) offers another game once it is over, and says what it won.
    var playAgain = root.querySelector('[data-choice="play_again"]');
    if (playAgain) {
      playAgain.hidden = !state.choices.play_again;
    }
    if (state.winnings_display) {
      setText("[data-winnings]", state.winnings_display);
    }
    var mark = root.querySelector('[data-choice="mark"]');
    if (mark) {
      mark.hidden = !state.choices.mark_by_hand;
    }
    renderPrizes();
    renderCards(drawn);
    if (window.bingoPlaytime && state.playtime) {
      window.bingoPlaytime.apply(state.playtime); // static/js/playtime.js (PT-806/70-71, R101)
    }
    var inPlay = state.in_play ? label("in-play").replace("{name}", state.in_play.name) : "";
    showRegion("[data-in-play]", inPlay);
    // A prize won and a card one number from a prize (R95) are said apart: the win as an alert,
    // the warning as a polite status, never run together.
    var won = state.won && state.won.length ? label("won") + ": " + state.won.map(function (k) {
      return label("prize-" + k);
    }).join(", ") : "";
    showRegion("[data-win]", won);
    var near = oneToGo(drawn);
    showRegion("[data-near]", near.length ? label("one-to-go") + ": " + near.join("; ") : "");
    newBall();
  }

  // A region shown with ``text``, hidden when there is none; untouched when unchanged, so a
  // screen reader does not say it again at every ball.
  function showRegion(selector, text) {
    var node = root.querySelector(selector);
    if (!node) {
      return;
    }
    node.hidden = !text;
    if (node.textContent !== text) {
      node.textContent = text;
    }
  }

  // A ball beyond those last drawn (not the page's first drawing, nor a redraw for a hand
  // mark): the big number is animated again and the ball called aloud when the sound is on.
  function newBall() {
    var count = state.balls.length;
    var fresh = shown !== null && shown.game === state.game.id && count > shown.count;
    shown = { game: state.game.id, count: count };
    if (!fresh || state.last === null) {
      return;
    }
    var last = root.querySelector("[data-last]");
    last.classList.remove("is-new");
    void last.offsetWidth; // restart the animation (static/css/online.css)
    last.classList.add("is-new");
    if (window.bingoSpeech && state.calls) {
      window.bingoSpeech.say(state.calls[state.last - 1]); // static/js/speech.js
    }
  }

  // --- the server ------------------------------------------------------------------------------

  // Fewer balls than shown, for the same game: an older state (a read or a message overtaken
  // by a newer one), never to be shown over it (R95's alert and the marks would lag a ball).
  function older(id, balls) {
    return id === state.game.id && balls.length < state.balls.length;
  }

  function refetch() {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    window.fetch(stateUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (fresh) {
        // A read answered late (a ball relayed meanwhile) is older than what is shown: keep
        // the newer balls; the read queued by relay() brings the rest.
        if (fresh && !older(fresh.game.id, fresh.balls)) {
          state = fresh;
          render();
        }
      })
      .catch(function () { /* the next event or reconnect reads again */ })
      .then(function () {
        fetching = false;
        if (again) {
          again = false;
          refetch();
        }
      });
  }

  function relay(game) {
    if (!game || game.id !== gameId) {
      refetch();
      return;
    }
    if (fetching) {
      again = true; // the read in flight may answer older than this: read once more after it
    }
    if (older(game.id, game.balls)) {
      return;
    }
    var known = state.balls.length;
    var gap = game.balls.slice(0, known).join() !== state.balls.join();
    var stageChanged = game.state !== state.game.state;
    var prizesChanged = game.prizes.some(function (p, i) {
      return !state.prizes[i] || p.won !== state.prizes[i].won;
    });
    state.balls = game.balls;
    state.count = game.balls.length;
    state.last = game.last;
    state.game.state = game.state;
    state.game.state_name = game.state_name;
    render();
    if (gap || stageChanged || prizesChanged) {
      refetch(); // winners, the wallet, what may be bought: read the whole state again
    }
  }

  function follow() {
    // static/js/live.js: the badge, the heartbeat's watchdog, reconnecting.
    window.bingoLive.follow(root.getAttribute("data-ws-path"), {
      badge: live,
      labels: { live: label("live"), offline: label("offline") },
      onOpen: function () {
        refetch(); // whatever happened while away
      },
      onMessage: function (message) {
        if (message.type === "game.state") {
          relay(message.game);
        } else {
          refetch();
        }
      }
    });
  }

  // --- the buy form: what it costs -----------------------------------------------------------

  var form = root.querySelector(".online-buy");
  if (form) {
    // A room selling strips counts strips of six cards (data-cards-each).
    var price = Number(form.getAttribute("data-price")) * (Number(form.getAttribute("data-cards-each")) || 1);
    var quantity = form.querySelector("input[name=quantity]");
    var cost = form.querySelector("[data-cost]");
    var places = Number(form.getAttribute("data-places")) || 0;
    var currency = form.getAttribute("data-currency") || "";
    // As the server shows money (bingo.common.money.money_display): "1 234 CVE", "1 234,50 EUR".
    var money = function (amount) {
      var parts = amount.toFixed(places).split(".");
      var whole = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, " ");
      return whole + (parts[1] ? "," + parts[1] : "") + " " + currency;
    };
    var showCost = function () {
      if (price && quantity && cost) {
        cost.textContent = money(price * (Number(quantity.value) || 0));
      }
    };
    if (quantity) {
      quantity.addEventListener("input", showCost);
    }
    showCost();
  }

  window.bingoLive.countdowns(root.querySelectorAll("[data-countdown]"));

  render();
  var pollMs = Number(root.getAttribute("data-poll-ms")) || 0;
  if (pollMs) {
    // A demo game (R102) has no websocket: the page reads its state as each ball falls due
    // (the server shows no ball before its time) until the game is over.
    live.textContent = label("live");
    live.classList.add("is-live");
    var poll = function () {
      if (state.game.state !== "finished") {
        refetch();
        window.setTimeout(poll, pollMs);
      }
    };
    window.setTimeout(poll, pollMs);
  } else {
    follow();
  }
})();
