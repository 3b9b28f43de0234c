/* The new-series form: the order number follows the hall, the card set boxes follow the source.
 *
 * The next order number of each hall comes in the "next-order-numbers" json_script block.
 */
(function () {
  "use strict";

  var form = document.getElementById("series-form");
  var data = document.getElementById("next-order-numbers");
  if (!form || !data) {
    return;
  }
  var next = JSON.parse(data.textContent);
  var hall = form.elements["hall"];
  var order = form.elements["order_number"];
  var suggested = order.value;
  hall.addEventListener("change", function () {
    // Follow the hall only while the order number is still the suggested one.
    if (order.value === "" || order.value === String(suggested)) {
      suggested = next[hall.value] || 1;
      order.value = suggested;
    }
  });
  function showSource() {
    var chosen = form.querySelector("input[name=source]:checked");
    form.querySelectorAll(".source-box").forEach(function (box) {
      box.hidden = !chosen || box.dataset.source !== chosen.value;
    });
  }
  form.querySelectorAll("input[name=source]").forEach(function (radio) {
    radio.addEventListener("change", showSource);
  });
  showSource();
})();
