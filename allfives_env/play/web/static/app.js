// All Fives in the browser: draws the positions the server (or a replay file) gives and sends the
// person's choices back. No rule lives here: legal moves, counts and scores all come from the engine.
// Text from the server or a record is only ever set as textContent, never parsed as HTML.
"use strict";

(function () {
  const SVGNS = "http://www.w3.org/2000/svg";
  const GAP = 0.12; // between tiles, in tile-half units
  // the smallest layout box, in tile-half units (a phone gets bigger tiles)
  const MIN_VIEW = window.innerWidth < 600 ? [11, 5] : [20, 6];
  // pixels per tile-half: as large as the width allows within these; a longer layout scrolls sideways
  const MIN_PX = 20, MAX_PX = 44;
  const SPEEDS = [["slow", 1500], ["normal", 700], ["fast", 250], ["fastest", 30]];
  // pip centres on a unit half, for 0..6
  const PIPS = [
    [], [[0.5, 0.5]], [[0.25, 0.25], [0.75, 0.75]], [[0.25, 0.25], [0.5, 0.5], [0.75, 0.75]],
    [[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]],
    [[0.25, 0.25], [0.75, 0.25], [0.5, 0.5], [0.25, 0.75], [0.75, 0.75]],
    [[0.27, 0.2], [0.27, 0.5], [0.27, 0.8], [0.73, 0.2], [0.73, 0.5], [0.73, 0.8]],
  ];

  const boot = JSON.parse(document.getElementById("boot").textContent);
  const app = document.getElementById("app");
  const mode = document.body.dataset.mode;

  // ------------------------------------------------------------------ small helpers
  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
    }
    return node;
  }

  function s(tag, attrs) {
    const node = document.createElementNS(SVGNS, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, String(value));
    }
    return node;
  }

  function points(x) {
    return Number.isInteger(x) ? String(x) : String(Math.round(x * 100) / 100);
  }

  function showMessage(text, kind) {
    const box = document.getElementById("message");
    if (!box) return;
    box.textContent = text || "";
    box.className = text ? `message ${kind || "error"}` : "message";
  }

  async function api(method, path, body, raw) {
    const init = { method, headers: {} };
    if (raw !== undefined) {
      init.body = raw;
      init.headers["Content-Type"] = "application/octet-stream";
    } else if (body !== undefined) {
      // a BigInt (a seed past 2**53) travels as the digits it holds, not as a rounded number
      init.body = JSON.stringify(body, (key, value) => typeof value === "bigint" ? `\u0000big:${value}` : value)
        .replace(/"\\u0000big:(\d+)"/g, "$1");
      init.headers["Content-Type"] = "application/json";
    }
    const response = await fetch(path, init);
    let data;
    try {
      // a seed past 2**53 is read from its digits where the browser gives a number's source text
      data = JSON.parse(await response.text(), (key, value, context) =>
        key === "seed" && typeof value === "number" && !Number.isSafeInteger(value) && context?.source
          ? BigInt(context.source) : value);
    } catch (exc) {
      data = { error: `the server answered ${response.status} ${response.statusText}` };
    }
    if (!response.ok) {
      const error = new Error(data.error || response.statusText);
      error.status = response.status;
      throw error;
    }
    return data;
  }

  // ------------------------------------------------------------------ dominoes in SVG
  // A domino at (x, y), w x h units, first half left (or on top).
  function domino(x, y, first, second, vertical, cls) {
    const w = vertical ? 1 : 2, hgt = vertical ? 2 : 1;
    const g = s("g", { class: `domino ${cls || ""}`, transform: `translate(${x} ${y})` });
    g.append(s("rect", { x: 0.02, y: 0.02, width: w - 0.04, height: hgt - 0.04, rx: 0.14, class: "face" }));
    g.append(vertical ? s("line", { x1: 0.12, y1: 1, x2: 0.88, y2: 1, class: "divider" })
      : s("line", { x1: 1, y1: 0.12, x2: 1, y2: 0.88, class: "divider" }));
    [first, second].forEach((value, half) => {
      const ox = vertical ? 0 : half, oy = vertical ? half : 0;
      for (const [px, py] of PIPS[value]) {
        // a vertical half shows the horizontal half's pattern turned a quarter
        const cx = vertical ? py : px, cy = vertical ? px : py;
        g.append(s("circle", { cx: ox + cx, cy: oy + cy, r: 0.085, class: "pip" }));
      }
    });
    return g;
  }

  function tileSvg(tile, vertical, size) {
    const svgNode = s("svg", {
      viewBox: vertical ? "0 0 1 2" : "0 0 2 1", class: "tile-svg", width: vertical ? size : 2 * size,
      height: vertical ? 2 * size : size, "aria-hidden": "true",
    });
    svgNode.append(domino(0, 0, tile.pips[0], tile.pips[1], vertical, ""));
    return svgNode;
  }

  // The layout as a cross: cells of the row, then the N arm above and the S arm below the spinner.
  function layoutGeometry(layout) {
    const cells = [], ends = {};
    let x = 0, spinnerX = 0;
    layout.row.forEach((cell, i) => {
      const w = cell.double ? 1 : 2, hgt = cell.double ? 2 : 1;
      cells.push({ cell, x, y: -hgt / 2, vertical: cell.double });
      if (i === layout.spinner) spinnerX = x + w / 2;
      x += w + GAP;
    });
    const rowEnd = x - GAP;
    ends.W = [-0.75, 0];
    ends.E = [rowEnd + 0.75, 0];
    let y = -1 - GAP;
    for (const cell of [...layout.north].reverse()) {
      const w = cell.double ? 2 : 1, hgt = cell.double ? 1 : 2;
      y -= hgt;
      cells.push({ cell, x: spinnerX - w / 2, y, vertical: !cell.double });
      y -= GAP;
    }
    ends.N = [spinnerX, y - 0.65];
    y = 1 + GAP;
    for (const cell of layout.south) {
      const w = cell.double ? 2 : 1, hgt = cell.double ? 1 : 2;
      cells.push({ cell, x: spinnerX - w / 2, y, vertical: !cell.double });
      y += hgt + GAP;
    }
    ends.S = [spinnerX, y + 0.65];
    return { cells, ends, width: rowEnd };
  }

  // The layout drawing; `targets` maps a slot name to the move placing the selected tile there.
  function layoutSvg(view, targets, onTarget, freshTile) {
    const layout = view.layout;
    const root = s("svg", { class: "layout", role: "img", "aria-label": layoutLabel(view) });
    if (layout.empty) {
      root.setAttribute("viewBox", `${-MIN_VIEW[0] / 2} ${-MIN_VIEW[1] / 2} ${MIN_VIEW[0]} ${MIN_VIEW[1]}`);
      sizeLayout(root, MIN_VIEW[0], MIN_VIEW[1]);
      root.append(s("text", { x: 0, y: 0.15, class: "empty-note", text: "empty layout: the next play leads" }));
      if (targets.LEAD) root.append(endMarker(0, 0, "lead", "", targets.LEAD, onTarget));
      return root;
    }
    const geometry = layoutGeometry(layout);
    for (const { cell, x, y, vertical } of geometry.cells) {
      const cls = [cell.spinner ? "spinner" : "", cell.tile === freshTile ? "fresh" : ""].join(" ");
      const g = domino(x, y, cell.pips[0], cell.pips[1], vertical, cls);
      g.setAttribute("data-tile", cell.tile);
      g.append(s("title", { text: cell.name + (cell.spinner ? " (the spinner)" : "") }));
      root.append(g);
    }
    let minX = -1.5, maxX = geometry.width + 1.5, minY = -1.6, maxY = 1.6;
    for (const end of layout.ends) {
      if (!end.open) continue;
      const [cx, cy] = geometry.ends[end.slot];
      minY = Math.min(minY, cy - 0.6);
      maxY = Math.max(maxY, cy + 0.6);
      root.append(endMarker(cx, cy, end.slot, end.label, targets[end.slot], onTarget, !end.counts));
    }
    // a short layout is not blown up: the box is at least MIN_VIEW units, the layout in its middle
    const width = Math.max(maxX - minX, MIN_VIEW[0]), height = Math.max(maxY - minY, MIN_VIEW[1]);
    const left = (minX + maxX - width) / 2, top = (minY + maxY - height) / 2;
    root.setAttribute("viewBox", `${left} ${top} ${width} ${height}`);
    sizeLayout(root, width, height);
    return root;
  }

  // The drawing's size in pixels: the page's width shared out, but never so small that pips blur.
  function sizeLayout(root, width, height) {
    const across = Math.max(200, app.clientWidth - 40); // the felt's inner width
    const down = Math.max(160, window.innerHeight * 0.5); // half the screen: the hand stays in sight
    const px = Math.max(MIN_PX, Math.min(MAX_PX, across / width, down / height));
    root.setAttribute("width", Math.round(width * px));
    root.setAttribute("height", Math.round(height * px));
  }

  function endMarker(cx, cy, slot, label, move, onTarget, countsNothing) {
    const cls = `end${move ? " target" : ""}${countsNothing ? " zero" : ""}`;
    const g = s("g", { class: cls, "data-slot": slot, transform: `translate(${cx} ${cy})` });
    g.append(s("rect", { x: -0.55, y: -0.5, width: 1.1, height: 1, rx: 0.2 }));
    g.append(s("text", { x: 0, y: -0.08, class: "slot", text: slot === "lead" ? "lead" : slot }));
    g.append(s("text", { x: 0, y: 0.34, class: "value", text: label }));
    if (move) {
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", move.text);
      g.addEventListener("click", () => onTarget(move));
      g.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          onTarget(move);
        }
      });
    }
    return g;
  }

  function layoutLabel(view) {
    const layout = view.layout;
    if (layout.empty) return "The layout is empty.";
    const names = (cells) => cells.map((c) => `[${c.pips[0]}|${c.pips[1]}]`).join(" ");
    const parts = [`Row: ${names(layout.row)}`];
    if (layout.north.length) parts.push(`North arm: ${names(layout.north)}`);
    if (layout.south.length) parts.push(`South arm: ${names(layout.south)}`);
    return parts.join(". ") + ".";
  }

  // ------------------------------------------------------------------ the board
  // ctx: {selected, onTile, onMove, freshTile}; returns the board element.
  function board(view, ctx) {
    const moves = view.moves || [];
    const targets = {};
    if (ctx.selected !== null && ctx.selected !== undefined) {
      for (const move of moves) {
        if (move.tile === ctx.selected) targets[move.kind === "lead" ? "LEAD" : move.slot] = move;
      }
    }
    return h("section", { class: "board" },
      scoresBar(view),
      seatsBar(view),
      h("div", { class: "table-area" }, layoutSvg(view, targets, ctx.onMove, ctx.freshTile)),
      statusLine(view),
      handsArea(view, ctx, moves),
      movesArea(view, ctx, moves),
    );
  }

  function scoresBar(view) {
    return h("div", { class: "scores", id: "scores" },
      view.sides.map((side) => h("span", { class: `score${side.winner ? " winner" : ""}`, "data-side": side.side },
        h("span", { class: "who", text: side.label }), " ",
        h("strong", { class: "points", text: points(side.score) }))),
      h("span", { class: "target", text: `target ${points(view.target)}` }));
  }

  function seatsBar(view) {
    return h("ul", { class: "seats" }, view.seats.map((seat) => h("li", {
      class: `seat${seat.seat === view.to_move ? " to-move" : ""}`, "data-seat": seat.seat,
    }, h("span", { class: "name", text: seat.name }), " ",
    h("span", { class: "size", text: `${seat.hand_size} tile${seat.hand_size === 1 ? "" : "s"}` }),
    seat.seat === view.to_move ? h("span", { class: "turn", text: " to move" }) : null)));
  }

  function statusLine(view) {
    const ends = view.layout.ends.filter((e) => e.open)
      .map((e) => `${e.slot} ${e.label}${e.counts ? "" : " (counts 0)"}`).join(", ") || "none";
    const scoring = view.count_points ? ` (scores ${points(view.count_points)})` : "";
    return h("p", { class: "status" },
      "Count ", h("strong", { id: "count", class: view.count_points ? "scoring" : "", text: String(view.count) }),
      scoring, " | open ends: ", h("span", { id: "ends", text: ends }),
      " | boneyard ", h("span", { id: "boneyard", text: String(view.boneyard) }),
      ` | hand ${view.hand_number}`);
  }

  function handsArea(view, ctx, moves) {
    const bestByTile = new Map();
    for (const move of moves) {
      if (move.tile === null) continue;
      const best = bestByTile.get(move.tile);
      if (best === undefined || move.points > best) bestByTile.set(move.tile, move.points);
    }
    const seats = Object.keys(view.hands).map(Number).sort((a, b) => a - b);
    return h("div", { class: "hands" }, seats.map((seat) => {
      const own = seat === view.viewer;
      const tiles = view.hands[String(seat)];
      const label = own ? "Your hand" : `${view.seats[seat].name}`;
      return h("div", { class: `hand${own ? " own" : ""}`, "data-seat": seat },
        h("h3", { text: label }),
        h("div", { class: "tiles" }, tiles.length ? tiles.map((tile) => {
          const legal = own && bestByTile.has(tile.tile);
          const best = bestByTile.get(tile.tile);
          const cls = ["tile", legal ? "legal" : "", tile.tile === ctx.selected ? "selected" : "",
            tile.tile === view.must_play ? "must-play" : ""].join(" ");
          const badge = legal ? h("span", { class: "badge", text: best ? `+${points(best)}` : "0" }) : null;
          const aria = `${tile.name}${legal ? `, playable, best scores ${points(best)}` : ""}`;
          if (!own) return h("span", { class: cls, "data-tile": tile.tile, title: tile.name }, tileSvg(tile, true, 22));
          return h("button", {
            class: cls, type: "button", "data-tile": tile.tile, "aria-label": aria, disabled: !legal,
            onclick: () => ctx.onTile(tile.tile),
          }, tileSvg(tile, true, 26), badge);
        }) : h("span", { class: "none", text: "no tiles" })));
    }));
  }

  function movesArea(view, ctx, moves) {
    if (!moves.length) return null;
    const shown = ctx.selected !== null && ctx.selected !== undefined
      ? moves.filter((m) => m.tile === ctx.selected) : moves;
    const heading = shown.length < moves.length
      ? `Where does ${shown[0].name} go? Click an end on the layout or choose here (Esc: back)`
      : moves[0].kind === "draw" ? "No tile fits: you must draw"
        : moves[0].kind === "pass" ? "No tile fits and the boneyard is empty: you must pass"
          : view.must_play !== null ? "You drew a tile that fits: play it" : "Your move (click a tile, or a move; keys 1-9)";
    return h("div", { class: "moves", id: "moves" }, h("h3", { text: heading }),
      h("ol", {}, shown.map((move, i) => h("li", {}, h("button", {
        type: "button", class: `move ${move.kind}${move.points ? " scores" : ""}`, "data-action": move.action,
        onclick: () => ctx.onMove(move),
      }, h("kbd", { text: String(i + 1) }), " ", move.text)))));
  }

  function happenedList(view) {
    const items = view.happened || [];
    return h("div", { class: "log" }, h("h3", { text: "What happened" }),
      h("ol", { id: "log" }, items.map((text, i) => h("li", { class: i === items.length - 1 ? "latest" : "", text }))));
  }

  function sheetTable(view, rows) {
    rows = rows || view.sheet;
    if (!rows || !rows.length) return null;
    return h("div", { class: "sheet" }, h("h3", { text: "Score sheet" }),
      h("table", { id: "sheet" },
        h("thead", {}, h("tr", {}, h("th", { text: "hand" }), h("th", { text: "ended by" }),
          view.sides.map((side) => h("th", { text: side.label })))),
        h("tbody", {}, rows.map((row) => h("tr", {},
          h("td", { text: String(row.hand) }), h("td", { text: row.how }),
          row.totals.map((total, k) => h("td", {
            text: `${points(total)} (${row.gains[k] >= 0 ? "+" : ""}${points(row.gains[k])})`,
          })))))));
  }

  // ------------------------------------------------------------------ a game (play or watch)
  function gamePage(gameId) {
    const state = { view: null, selected: null, playing: true, delay: 700, timer: null, busy: false };
    const speed = h("select", { id: "speed", "aria-label": "speed" },
      SPEEDS.map(([name, ms]) => h("option", { value: ms, selected: ms === 700, text: `${name} (${ms / 1000} s)` })));
    speed.addEventListener("change", () => { state.delay = Number(speed.value); });
    const pause = h("button", { type: "button", id: "pause", onclick: () => togglePause() }, "Pause");
    const step = h("button", { type: "button", id: "step", onclick: () => advance(true) }, "Step");
    const controls = h("div", { class: "controls" }, h("label", {}, "Speed ", speed));
    const message = h("div", { id: "message", class: "message", role: "alert" });
    const banner = h("div", { id: "banner", class: "banner", "aria-live": "polite" });
    const body = h("div", { id: "game" });
    app.replaceChildren(controls, message, banner, body);

    function togglePause() {
      state.playing = !state.playing;
      pause.textContent = state.playing ? "Pause" : "Play";
      if (state.view) renderBanner(state.view);
      schedule();
    }

    async function load() {
      try {
        show(await api("GET", `/api/games/${gameId}`));
      } catch (error) {
        showMessage(error.message);
      }
    }

    function show(view) {
      state.view = view;
      if (view.mode === "watch" && !controls.contains(pause)) controls.append(" ", pause, " ", step);
      document.getElementById("subtitle").textContent = view.mode === "play" ? "playing" : "watching";
      render();
      schedule();
    }

    function render() {
      const view = state.view;
      // for tests and scripts: the position the page shows
      document.body.dataset.version = view.version;
      document.body.dataset.waiting = view.waiting_for;
      const ctx = { selected: state.selected, onTile: chooseTile, onMove: sendMove, freshTile: view.last_tile };
      const links = [h("a", { href: "/", text: "new game" })];
      if (view.record_ready) {  // the record and the seed show every hand: a person gets them at the end
        links.push(" | ", h("a", { href: `/api/games/${view.id}/record`, download: "", text: "download the record" }),
          " | ", h("a", { href: `/replay?game_id=${view.id}`, text: "replay this game" }), ` | seed ${view.seed}`);
      }
      body.replaceChildren(board(view, ctx), happenedList(view), sheetTable(view), h("p", { class: "links" }, links));
      renderBanner(view);
      const focus = body.querySelector(".tile.selected") ? body.querySelector(".end.target")
        : body.querySelector(".hand.own button.tile.legal") || body.querySelector("#moves button");
      if (focus && document.activeElement === document.body) focus.focus({ preventScroll: true });
    }

    function renderBanner(view) {
      banner.replaceChildren();
      if (view.waiting_for === "next_hand") {
        const deal = h("button", { type: "button", id: "next-hand", onclick: () => advance(true) },
          `Deal hand ${view.hand_number + 1}`);
        banner.append(h("p", { class: "hand-over", text: `Hand ${view.hand_number} is over.` }),
          h("ul", { class: "hand-end", id: "hand-end" }, view.hand_end.sentences.map((text) => h("li", { text }))), deal);
        if (view.mode === "play") deal.focus({ preventScroll: true });
      } else if (view.waiting_for === "over") {
        const last = view.happened[view.happened.length - 1] || "Game over.";
        banner.append(h("p", { class: "game-over", id: "game-over", text: last }));
      } else if (view.waiting_for === "agent") {
        const who = view.seats[view.to_move].name;
        const text = view.mode === "watch" && !state.playing ? `paused; ${who} is to move (Step or Play)` : `${who} is playing...`;
        banner.append(h("p", { class: "thinking", text }));
      }
    }

    function schedule() {
      clearTimeout(state.timer);
      const view = state.view;
      if (!view || state.busy) return;
      const auto = view.mode === "play" ? view.waiting_for === "agent"
        : state.playing && (view.waiting_for === "agent" || view.waiting_for === "next_hand");
      if (auto) {
        const pauseLonger = view.waiting_for === "next_hand" ? 3 : 1;
        state.timer = setTimeout(() => advance(false), state.delay * pauseLonger);
      }
    }

    async function post(path, body) {
      if (state.busy) return;
      state.busy = true;
      clearTimeout(state.timer);
      try {
        const view = await api("POST", path, body);
        state.selected = null;
        showMessage("");
        state.busy = false;
        show(view);
      } catch (error) {
        state.busy = false;
        showMessage(error.message);
        if (error.status === 409) await load(); // behind the game: show where it is now
      }
    }

    function advance(byHand) {
      if (byHand && state.view.mode === "watch" && state.view.waiting_for === "over") return;
      return post(`/api/games/${gameId}/advance`, { version: state.view.version });
    }

    function sendMove(move) {
      return post(`/api/games/${gameId}/move`, { version: state.view.version, action: move.action });
    }

    function chooseTile(tile) {
      const placements = state.view.moves.filter((m) => m.tile === tile);
      if (placements.length === 1) return sendMove(placements[0]);
      state.selected = tile;
      render();
      const first = body.querySelector(".end.target");
      if (first) first.focus({ preventScroll: true });
    }

    window.addEventListener("resize", () => { if (state.view) render(); });
    document.addEventListener("keydown", (event) => {
      if (!state.view || event.target.closest && event.target.closest("input, select, textarea")) return;
      const view = state.view;
      const moves = view.moves || [];
      const shown = state.selected !== null ? moves.filter((m) => m.tile === state.selected) : moves;
      if (/^[1-9]$/.test(event.key) && shown[Number(event.key) - 1]) {
        event.preventDefault();
        sendMove(shown[Number(event.key) - 1]);
      } else if (event.key === "Escape" && state.selected !== null) {
        state.selected = null;
        render();
      } else if ((event.key === "d" || event.key === "p") && moves.length === 1 && moves[0].kind !== "play"
        && moves[0].kind !== "lead") {
        sendMove(moves[0]);
      } else if ((event.key === "n" || event.key === "Enter") && view.waiting_for === "next_hand"
        && event.target.id !== "next-hand") {
        event.preventDefault();
        advance(true);
      } else if (view.mode === "watch" && event.key === " ") {
        event.preventDefault();
        togglePause();
      } else if (view.mode === "watch" && (event.key === "ArrowRight" || event.key === "s")) {
        advance(true);
      }
    });
    load();
  }

  // ------------------------------------------------------------------ home: start a game
  function homePage() {
    const options = boot.options;
    const message = h("div", { id: "message", class: "message", role: "alert" });
    const agentSelect = (id, label) => h("label", {}, `${label} `, h("select", { id, name: id },
      options.agents.map((spec) => h("option", { value: spec, text: spec }))));
    const n = options.players;
    const seat = h("select", { id: "seat" }, options.seats.map((k) => h("option", { value: k, text: `seat ${k}` })));
    const opponentBox = h("div", { class: "opponents" });
    function opponentFields() {
      const me = Number(seat.value);
      const partner = n === 4 ? (me + 2) % 4 : null;
      const others = options.seats.filter((k) => k !== me && k !== partner);
      opponentBox.replaceChildren(...others.map((k) => agentSelect(`opponent-${k}`, `player_${k}:`)),
        partner !== null ? agentSelect("partner", `your partner (player_${partner}):`) : "");
    }
    seat.addEventListener("change", opponentFields);
    opponentFields();
    const seedInput = (id) => h("label", {}, "Seed ", h("input", {
      id, type: "number", min: 0, step: 1, placeholder: "fresh deal", inputmode: "numeric",
    }));
    const playForm = h("form", { id: "play-form", class: "card" }, h("h2", { text: "Play" }),
      h("p", { text: `You against agents, ${n} players, to ${points(options.target)} points.` }),
      h("label", {}, "Your seat ", seat), opponentBox, seedInput("play-seed"),
      h("button", { type: "submit", id: "start-play", text: "Start playing" }));
    const watchForm = h("form", { id: "watch-form", class: "card" }, h("h2", { text: "Watch" }),
      h("p", { text: n === 4 ? "Two partnerships of agents." : "Agents among themselves." }),
      Array.from({ length: options.sides }, (_, k) => agentSelect(`side-${k}`,
        n === 4 ? `partnership ${k} (seats ${k} and ${k + 2}):` : `player_${k}:`)),
      seedInput("watch-seed"), h("button", { type: "submit", id: "start-watch", text: "Start watching" }));
    const replayCard = h("div", { class: "card" }, h("h2", { text: "Replay" }),
      h("p", { text: "Step through a recorded game (allfives eval --records, play --record)." }),
      h("a", { href: "/replay", id: "open-replay", class: "button", text: "Open a record" }));
    app.replaceChildren(message, h("div", { class: "cards" }, playForm, watchForm, replayCard));

    function seedOf(id) {
      const text = document.getElementById(id).value.trim();
      if (text === "") return null;
      // whole numbers past 2**53 would lose their last digits as a JS number
      return /^\d+$/.test(text) && !Number.isSafeInteger(Number(text)) ? BigInt(text) : Number(text);
    }
    async function start(body) {
      try {
        const view = await api("POST", "/api/games", body);
        window.location.assign(`/games/${view.id}`);
      } catch (error) {
        showMessage(error.message);
      }
    }
    playForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const me = Number(seat.value);
      const partner = n === 4 ? (me + 2) % 4 : null;
      const opponents = options.seats.filter((k) => k !== me && k !== partner)
        .map((k) => document.getElementById(`opponent-${k}`).value);
      const body = { mode: "play", seat: me, opponents, seed: seedOf("play-seed") };
      if (partner !== null) body.partner = document.getElementById("partner").value;
      start(body);
    });
    watchForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const agents = Array.from({ length: options.sides }, (_, k) => document.getElementById(`side-${k}`).value);
      start({ mode: "watch", agents, seed: seedOf("watch-seed") });
    });
  }

  // ------------------------------------------------------------------ replay
  function replayPage() {
    const message = h("div", { id: "message", class: "message", role: "alert" });
    const viewer = h("div", { id: "replay" });
    if (boot.replay) {
      app.replaceChildren(message, viewer);
      return replayViewer(viewer, boot.replay);
    }
    const file = h("input", { type: "file", id: "record-file", accept: ".jsonl,.json,application/json" });
    const number = h("input", { type: "number", id: "record-game", min: 1, step: 1, value: 1 });
    const form = h("form", { id: "replay-form", class: "card" }, h("h2", { text: "Open a record" }),
      h("label", {}, "Record file ", file), h("label", {}, "Game in the file ", number),
      h("button", { type: "submit", id: "open-record", text: "Replay" }));
    app.replaceChildren(message, form, viewer);
    async function open(bytes) {
      try {
        const data = await api("POST", `/api/replays?game=${encodeURIComponent(number.value || "1")}`, undefined, bytes);
        showMessage("");
        replayViewer(viewer, data);
      } catch (error) {
        viewer.replaceChildren(); // a refused record leaves no older replay on the screen
        showMessage(error.message);
      }
    }
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (!file.files.length) return showMessage("Choose a record file first (a .jsonl file of game records).");
      const limit = boot.options.max_record_bytes;
      if (file.files[0].size > limit) {
        return showMessage(`${file.files[0].name} is ${file.files[0].size} bytes; the limit is ${limit} bytes.`);
      }
      open(await file.files[0].arrayBuffer());
    });
    const fromGame = new URLSearchParams(window.location.search).get("game_id");
    if (fromGame) {
      fetch(`/api/games/${encodeURIComponent(fromGame)}/record`).then(async (r) => {
        if (!r.ok) throw new Error((await r.json().catch(() => ({}))).error || `no game ${fromGame} on this server`);
        return r.arrayBuffer();
      }).then(open, (error) => showMessage(error.message));
    }
  }

  // The replay page's keys drive whichever replay it shows now (a second record replaces the first).
  const replayKeys = { current: null, redraw: null };
  document.addEventListener("keydown", (event) => {
    if (mode !== "replay" || !replayKeys.current) return;
    if (event.target.closest && event.target.closest("input, select, textarea")) return;
    if (replayKeys.current(event)) event.preventDefault();
  });
  window.addEventListener("resize", () => { if (mode === "replay" && replayKeys.redraw) replayKeys.redraw(); });

  function replayViewer(root, data) {
    const positions = data.positions, starts = data.hand_starts;
    let index = 0;
    const handOf = (i) => starts.filter((start) => start <= i).length - 1;
    const label = h("span", { id: "position" });
    const hand = h("select", { id: "hand", "aria-label": "jump to hand" },
      starts.map((start, k) => h("option", { value: k, text: `hand ${k + 1}` })));
    hand.addEventListener("change", () => go(starts[Number(hand.value)]));
    const button = (id, text, title, to) => h("button", { type: "button", id, title, onclick: () => go(to()) }, text);
    const controls = h("div", { class: "controls" },
      button("first", "|<", "start (Home)", () => 0),
      button("prev-hand", "<<", "previous hand (PageUp)", () => starts[Math.max(0, handOf(index) - (index === starts[handOf(index)] ? 1 : 0))]),
      button("back", "<", "back (Left arrow)", () => index - 1),
      button("forward", ">", "forward (Right arrow)", () => index + 1),
      button("next-hand", ">>", "next hand (PageDown)", () => starts[handOf(index) + 1] ?? positions.length - 1),
      button("last", ">|", "end (End)", () => positions.length - 1),
      h("label", {}, " jump to ", hand), " ", label);
    const check = h("p", { class: "check", id: "check", text: data.check });
    const names = data.games_in_file > 1 ? `game ${data.game} of ${data.games_in_file} in the file` : "";
    const area = h("div", {});
    root.replaceChildren(check, names ? h("p", { text: names }) : "", controls, area);
    document.getElementById("subtitle").textContent = "replay";

    function go(target) {
      index = Math.max(0, Math.min(positions.length - 1, target));
      const view = positions[index];
      const k = handOf(index);
      hand.value = String(k);
      label.textContent = `hand ${k + 1}/${starts.length}, step ${index - starts[k]} (position ${index + 1}/${positions.length})`
        + (view.hand_over ? ", hand over" : "");
      const ctx = { selected: null, onTile: () => {}, onMove: () => {}, freshTile: view.last_tile };
      document.body.dataset.position = index;
      const rows = data.sheet.filter((row) => row.hand < view.hand_number || (row.hand === view.hand_number && view.hand_over));
      area.replaceChildren(board(view, ctx), happenedList(view), sheetTable(view, rows));
    }
    replayKeys.current = (event) => {
      const k = handOf(index);
      const keys = {
        ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: positions.length - 1,
        PageDown: starts[k + 1] ?? positions.length - 1, PageUp: starts[Math.max(0, k - (index === starts[k] ? 1 : 0))],
      };
      if (!(event.key in keys)) return false;
      go(keys[event.key]);
      return true;
    };
    replayKeys.redraw = () => go(index);
    go(0);
  }

  // ------------------------------------------------------------------ start
  if (mode === "home") homePage();
  else if (mode === "game") gamePage(boot.game_id);
  else if (mode === "replay") replayPage();
})();
