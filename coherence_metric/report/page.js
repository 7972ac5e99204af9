(function () {
  "use strict";
  window.addEventListener("error", function (event) {
    document.body.setAttribute("data-js-error", String(event.message));
  });
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var PAGE_SIZE = 50;  // html.PAGE_SIZE
  var pages = Math.max(1, Math.ceil(data.order.length / PAGE_SIZE));
  var page = 0;
  var open = {};
  var names = data.systems.map(function (system) { return system.name; });
  var values = [];
  Object.keys(data.explained).forEach(function (key) {
    names.forEach(function (name) {
      var item = data.explained[key][name];
      if (item) { values = values.concat(item.transitions); }
    });
  });
  values.sort(function (a, b) { return a - b; });
  var low = values.length ? values[Math.floor(0.05 * (values.length - 1))] : 0;
  var high = values.length ? values[Math.ceil(0.95 * (values.length - 1))] : 1;
  if (!(high > low)) { high = low + 1; }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function shade(value) {
    var t = Math.min(1, Math.max(0, (value - low) / (high - low)));
    return "rgba(214,39,40," + (0.5 * (1 - t)).toFixed(3) + ")";
  }

  function plainText(text) {
    return typeof text === "string" ? text : text.join(" ");
  }

  function systemText(index, name) {
    var box = element("div", "system-text");
    var score = data.systems[names.indexOf(name)].scores[index];
    box.appendChild(element("h4", null, name + "  (score " + score.toFixed(4) + ")"));
    var paragraph = element("p");
    var item = data.explained[String(index)] && data.explained[String(index)][name];
    if (item) {
      // Only the sentences explain flagged (beyond a threshold set on dev data) are tinted and marked, with the
      // kind of break; a clean text is shown plain.
      var kinds = {};
      (item.flags || []).forEach(function (flag) { kinds[flag.sentence] = flag.kind; });
      item.sentences.forEach(function (sentence, position) {
        var span = element("span", "sent", sentence);
        if (position > 0) {
          var value = item.transitions[position - 1];
          span.title = "transition from the previous sentence: " + value.toFixed(4);
        }
        if (kinds[position] !== undefined) {
          span.className = "sent flagged";
          span.style.background = position > 0 ? shade(item.transitions[position - 1]) : shade(low);
          span.title = (span.title ? span.title + "; " : "") + "flagged: " + kinds[position];
          paragraph.appendChild(element("mark", "break", "\u25bc " + kinds[position]));
        }
        paragraph.appendChild(span);
        paragraph.appendChild(document.createTextNode(" "));
      });
      if (!item.transitions.length) {
        box.appendChild(paragraph);
        box.appendChild(element("div", "note", "One sentence: no transitions to score."));
        return box;
      }
      if (!(item.flags || []).length) {
        box.appendChild(paragraph);
        box.appendChild(element("div", "note", "No break found."));
        return box;
      }
    } else if (data.texts) {
      paragraph.textContent = plainText(data.texts[name][index]);
      box.appendChild(paragraph);
      box.appendChild(element("div", "note", "Transition scores were computed for the " +
        Object.keys(data.explained).length + " inputs with the largest differences (report --explain-rows)."));
      return box;
    } else {
      paragraph.textContent = "(texts not included in this report)";
    }
    box.appendChild(paragraph);
    return box;
  }

  function detailRow(index) {
    var row = element("tr", "detail");
    var cell = element("td");
    cell.colSpan = names.length + 3;
    var grid = element("div", "texts");
    names.forEach(function (name) { grid.appendChild(systemText(index, name)); });
    cell.appendChild(grid);
    row.appendChild(cell);
    return row;
  }

  function render() {
    var body = document.getElementById("input-rows");
    body.textContent = "";
    var start = page * PAGE_SIZE;
    data.order.slice(start, start + PAGE_SIZE).forEach(function (index, offset) {
      var row = element("tr", open[index] ? "row open" : "row");
      row.setAttribute("data-input", String(index));
      row.appendChild(element("td", "num", String(start + offset + 1)));
      row.appendChild(element("td", null, data.labels[index]));
      var scores = names.map(function (name, column) { return data.systems[column].scores[index]; });
      scores.forEach(function (score) { row.appendChild(element("td", "num", score.toFixed(4))); });
      var spread = Math.max.apply(null, scores) - Math.min.apply(null, scores);
      row.appendChild(element("td", "num", spread.toFixed(4)));
      row.addEventListener("click", function () {
        open[index] = !open[index];
        render();
      });
      body.appendChild(row);
      if (open[index]) { body.appendChild(detailRow(index)); }
    });
    document.getElementById("page-label").textContent = "page " + (page + 1) + " of " + pages +
      " (" + data.order.length + " inputs, " + PAGE_SIZE + " per page)";
  }

  function go(target) {
    page = Math.min(pages - 1, Math.max(0, target));
    render();
  }

  document.getElementById("first").addEventListener("click", function () { go(0); });
  document.getElementById("previous").addEventListener("click", function () { go(page - 1); });
  document.getElementById("next").addEventListener("click", function () { go(page + 1); });
  document.getElementById("last").addEventListener("click", function () { go(pages - 1); });
  if (data.order.length) { open[data.order[0]] = true; }
  render();
  document.body.setAttribute("data-rendered", "yes");
})();
