/* Accessibility on every page (issue 25, WCAG 2.1 AA): the large-print mode and the tables that
 * scroll sideways.
 *
 * Large print: a class on <html> (static/css/app.css «large print») raises the base font size
 * and the player's cards and balls. It is remembered in this browser (localStorage) and set
 * here, in the <head>, before the page is drawn, so a page never flashes small first. The
 * switch is a button of the header's ([data-large-print], player pages), shown only where this
 * script runs, with aria-pressed saying whether it is on.
 *
 * Scrolling tables: where a table is wider than its box (a phone, large print) the box scrolls
 * sideways; a keyboard user can scroll it only once it takes the focus (WCAG 2.1.1), so such a
 * box gets tabindex="0", and loses it when it no longer scrolls. No inline script (CSP).
 */
(function () {
  "use strict";

  var KEY = "bingo-large-print";
  var root = document.documentElement;

  function remembered() {
    try {
      return window.localStorage.getItem(KEY) === "1";
    } catch (err) {
      return false;
    }
  }

  function remember(on) {
    try {
      if (on) {
        window.localStorage.setItem(KEY, "1");
      } else {
        window.localStorage.removeItem(KEY);
      }
    } catch (err) {
      /* private mode: the choice lasts as long as the page */
    }
  }

  root.classList.toggle("large-print", remembered());

  function focusScrollers() {
    var boxes = document.querySelectorAll(".table-wrap, .data-table");
    Array.prototype.forEach.call(boxes, function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("data-scroll-focus", "");
      } else if (!scrolls && box.hasAttribute("data-scroll-focus")) {
        box.removeAttribute("tabindex");
        box.removeAttribute("data-scroll-focus");
      }
    });
  }

  function wireSwitches() {
    var switches = document.querySelectorAll("[data-large-print]");
    Array.prototype.forEach.call(switches, function (button) {
      button.hidden = false;
      button.setAttribute("aria-pressed", String(root.classList.contains("large-print")));
      button.addEventListener("click", function () {
        var on = !root.classList.contains("large-print");
        root.classList.toggle("large-print", on);
        remember(on);
        Array.prototype.forEach.call(switches, function (other) {
          other.setAttribute("aria-pressed", String(on));
        });
        focusScrollers();
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    wireSwitches();
    focusScrollers();
    window.addEventListener("resize", focusScrollers);
  });
})();
