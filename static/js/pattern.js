/* 75-ball patterns (R73 b)), a small progressive enhancement; every page works without it.
 *
 * window.bingoPattern.render(container, pattern) draws a pattern's picture as
 * templates/bingo/_pattern_picture.html does (pattern: {key, name, rows}, rows of "X" a cell of
 * the pattern, "." another, "*" the free centre, R72), or empties the container for the full
 * card (null). The display and the player's game page redraw it when the game changes.
 * On the game form, ticking a cell of the custom grid chooses «Custom pattern».
 */
(function () {
  "use strict";

  function render(container, pattern) {
    if (!container) {
      return;
    }
    var current = container.querySelector(".pattern-picture");
    var key = pattern ? pattern.key + ":" + pattern.rows.join("/") : "";
    if (current && current.getAttribute("data-drawn") === key) {
      return;
    }
    container.textContent = "";
    container.hidden = !pattern;
    if (!pattern) {
      return;
    }
    var figure = document.createElement("figure");
    figure.className = "pattern-picture";
    figure.setAttribute("data-pattern", pattern.key);
    figure.setAttribute("data-drawn", key);
    var table = document.createElement("table");
    table.className = "pattern-grid";
    table.setAttribute("role", "img");
    table.setAttribute("aria-label", (container.getAttribute("data-label") || "") + " " + pattern.name);
    var body = document.createElement("tbody");
    pattern.rows.forEach(function (row) {
      var line = document.createElement("tr");
      row.split("").forEach(function (cell) {
        var td = document.createElement("td");
        if (cell === "X") {
          td.className = "is-on";
        } else if (cell === "*") {
          td.className = "is-free";
          td.textContent = "\u2605";
        }
        line.appendChild(td);
      });
      body.appendChild(line);
    });
    table.appendChild(body);
    figure.appendChild(table);
    var caption = document.createElement("figcaption");
    caption.textContent = pattern.name;
    figure.appendChild(caption);
    container.appendChild(figure);
  }

  window.bingoPattern = { render: render };

  var drawing = document.querySelector("[data-pattern-draw]");
  if (drawing) {
    drawing.addEventListener("change", function (event) {
      var custom = document.querySelector('input[name="pattern"][value="custom"]');
      if (event.target.checked && custom) {
        custom.checked = true;
      }
    });
  }
})();
